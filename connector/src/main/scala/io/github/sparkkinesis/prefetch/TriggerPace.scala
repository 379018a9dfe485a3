// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import io.github.sparkkinesis.time.{Clock, SystemClock}

/**
 * How often the query takes its records, seen from the driver: the time between its batches'
 * commits, or the time since the last one when that is longer (an idle query). A shard at its
 * tip needs reading only a few times per batch ([[TriggerPace.CallsPerBatch]]): a query with a
 * 10-second trigger is served by a call a shard every 2 seconds, not every `minFetchPeriod`,
 * while one whose batches follow each other reads at the minimum period as before. Never more
 * than a quarter of `maxFetchDuration`, so a round still makes several calls a shard.
 */
final class TriggerPace(clock: Clock = SystemClock) {
  private var lastCommitNanos = clock.nanoTime()
  private var lastIntervalNanos = 0L

  /** A batch committed (the query asked for the next one from a new start). */
  def committed(): Unit = {
    val now = clock.nanoTime()
    lastIntervalNanos = now - lastCommitNanos
    lastCommitNanos = now
  }

  /** The longest gap between two calls to a shard at its tip, for the next round. */
  def tipFetchPeriodMs(minFetchPeriodMs: Long, maxFetchDurationMs: Long): Long = {
    val intervalMs = math.max(lastIntervalNanos, clock.nanoTime() - lastCommitNanos) / 1000000L
    math.max(minFetchPeriodMs, math.min(intervalMs / TriggerPace.CallsPerBatch, maxFetchDurationMs / 4))
  }
}

object TriggerPace {

  /** The calls a shard at its tip gets per batch interval. */
  val CallsPerBatch = 5
}
