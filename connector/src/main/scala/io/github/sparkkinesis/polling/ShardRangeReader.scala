// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.polling

import io.github.sparkkinesis.client.{KinesisApi, KinesisRecord}
import io.github.sparkkinesis.errors.KinesisErrors
import io.github.sparkkinesis.kpl.RangeCheck
import io.github.sparkkinesis.options.FetchSettings
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.time.{Clock, SystemClock}

/**
 * Yields exactly the user records of a shard after `start` up to `end` (inside a KPL aggregate,
 * when it names a sub-sequence): the range a batch's offsets name. Reading it again yields the
 * same records, which is what makes re-running a failed batch exact.
 */
final class ShardRangeReader(
    api: KinesisApi,
    shard: ShardKey,
    start: ShardPosition,
    end: ShardPosition.AfterSequence,
    settings: FetchSettings,
    clock: Clock = SystemClock,
    rangeCheck: Option[RangeCheck] = None) extends Iterator[KinesisRecord] {

  private val cursor = new ShardCursor(api, shard, start, settings, clock, rangeCheck)
  private var pending: Iterator[KinesisRecord] = Iterator.empty
  private var reachedEnd = false
  private var emptyAtTip = 0

  override def hasNext: Boolean = {
    while (!pending.hasNext && !reachedEnd) fetchMore()
    pending.hasNext
  }

  override def next(): KinesisRecord = {
    if (!hasNext) throw new NoSuchElementException(s"no more records in range of $shard")
    pending.next()
  }

  private def fetchMore(): Unit = {
    if (cursor.isEnded) throw unavailable("the shard ended before the last record of the batch")
    val batch = cursor.fetch()
    val (inRange, beyond) = batch.records.span(r => !r.isPast(end))
    pending = inRange.iterator
    val sawEnd = inRange.lastOption.exists(r => ShardPosition.covers(r.positionAfter, end))
    // Records past the end without the end record itself: it was trimmed by retention since the
    // driver saw it. Stopping quietly here would drop the batch's records without a word.
    if (beyond.nonEmpty && !sawEnd) {
      throw unavailable("the shard goes on past the range, but the range's last record is gone")
    }
    reachedEnd = beyond.nonEmpty || sawEnd
    // The range was seen on the driver, so its records exist; reaching the tip again and again
    // without them means they are gone (trimmed by retention), and waiting would hang forever.
    if (batch.records.isEmpty && batch.millisBehindLatest == 0) emptyAtTip += 1 else emptyAtTip = 0
    if (!reachedEnd && emptyAtTip >= ShardRangeReader.MaxEmptyReadsAtTip) {
      throw unavailable("the reader reached the tip of the shard without finding it")
    }
  }

  private def unavailable(reason: String) =
    KinesisErrors.recordsUnavailable(shard.toString, start.toString, end.toString, reason)
}

object ShardRangeReader {
  val MaxEmptyReadsAtTip = 5
}
