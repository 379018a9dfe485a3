// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.polling

import io.github.sparkkinesis.client.KinesisApi
import io.github.sparkkinesis.kpl.RangeCheck
import io.github.sparkkinesis.options.FetchSettings
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.threads.InFlight
import io.github.sparkkinesis.time.{Clock, SystemClock}

/**
 * Finds, on the driver, how far each shard can be read now: it reads forward from the batch's
 * start for up to `maxFetchDuration` or until it is caught up, and reports the last sequence
 * number it saw. The records themselves are read again on the executors, by that exact range.
 */
final class LatestOffsetProbe(api: KinesisApi, settings: FetchSettings, clock: Clock = SystemClock,
    rangeChecks: Map[ShardKey, RangeCheck] = Map.empty) {

  /** The position each of `shards` can be read up to now; none is ever behind its start. */
  def advance(shards: Map[ShardKey, ShardPosition]): Map[ShardKey, ShardPosition] = {
    val deadline = clock.nanoTime() + settings.maxFetchDurationMs * 1000000L
    val starts = shards.toIndexedSeq
    starts.map(_._1).zip(InFlight.map(starts, LatestOffsetProbe.Threads) { case (key, start) =>
      readAhead(key, start, deadline)
    }).toMap
  }

  private def readAhead(key: ShardKey, start: ShardPosition, deadline: Long): ShardPosition = {
    if (start.isInstanceOf[ShardPosition.ShardEnd]) return start
    val cursor = new ShardCursor(api, key, start, settings, clock, rangeChecks.get(key))
    var caughtUp = false
    while (!cursor.isEnded && !caughtUp && clock.nanoTime() < deadline) {
      cursor.fetch()
      caughtUp = cursor.atTip
    }
    cursor.position
  }
}

object LatestOffsetProbe {
  val Threads = 16
}
