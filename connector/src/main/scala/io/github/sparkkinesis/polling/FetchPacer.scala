package io.github.sparkkinesis.polling

import io.github.sparkkinesis.time.Clock

/**
 * Spaces GetRecords calls on one shard so a reader stays inside Kinesis' limits: at least
 * `minFetchPeriodMs` between calls (5 calls/s per shard is the service limit), and no more
 * than `maxFetchRateMBps` of data on average (2 MB/s per shard is the service limit).
 */
final class FetchPacer(minFetchPeriodMs: Long, maxFetchRateMBps: Double, clock: Clock) {
  private val minGapNanos = minFetchPeriodMs * 1000000L
  private var nextCallNanos = Long.MinValue

  /** Blocks until the next call is allowed. */
  def awaitTurn(): Unit = {
    if (nextCallNanos != Long.MinValue) clock.sleepNanos(nextCallNanos - clock.nanoTime())
  }

  /** How long until the next call is allowed; 0 when it is now. */
  def nanosUntilTurn: Long =
    if (nextCallNanos == Long.MinValue) 0L else math.max(0L, nextCallNanos - clock.nanoTime())

  /** Records a call that returned `bytes`; the next one waits long enough to keep both limits. */
  def recordFetch(bytes: Long): Unit = {
    val rateGapNanos = (bytes / (maxFetchRateMBps * 1000000.0) * 1e9).toLong
    nextCallNanos = clock.nanoTime() + math.max(minGapNanos, rateGapNanos)
  }

  /** Holds the next call back for `millis` (after throttling). */
  def backOff(millis: Long): Unit = {
    nextCallNanos = math.max(nextCallNanos, clock.nanoTime() + millis * 1000000L)
  }
}
