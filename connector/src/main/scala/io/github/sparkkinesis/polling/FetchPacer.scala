// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.polling

import io.github.sparkkinesis.time.Clock

/**
 * Spaces GetRecords calls on one shard so a reader stays inside Kinesis' limits: at least
 * `minFetchPeriodMs` between calls (5 calls/s per shard is the service limit), and no more
 * than `maxFetchRateMBps` of data on average. The service limit, "2 MB/s" per shard, is
 * 2 MiB/s, so a rate of 2.0 is 2 MiB/s here: read as 2,000,000 B/s it left 5% of the shard
 * unused (make bench, row `limits-polling`).
 *
 * A shard at its tip needs reading only as often as the query takes its records: after a call
 * at the tip the gap doubles, up to the period set by [[paceAtTip]] (the minimum by default),
 * and a call behind the tip reads at full pace again. Fewer, fuller calls cost less CPU per
 * record, and an idle shard costs next to nothing (make bench, rows `steady` and `idle`).
 */
final class FetchPacer(minFetchPeriodMs: Long, maxFetchRateMBps: Double, clock: Clock) {
  private val minGapNanos = minFetchPeriodMs * 1000000L
  private val bytesPerSecond = maxFetchRateMBps * 1024 * 1024
  private var nextCallNanos = Long.MinValue
  private var callStartNanos = Long.MinValue
  private var tipPeriodNanos = minGapNanos
  private var gapNanos = minGapNanos

  /** The longest gap after calls at the tip: at most `periodMs`, never less than `minFetchPeriodMs`. */
  def paceAtTip(periodMs: Long): Unit = {
    tipPeriodNanos = math.max(minGapNanos, periodMs * 1000000L)
    gapNanos = math.min(gapNanos, tipPeriodNanos)
  }

  /** Blocks until the next call is allowed. */
  def awaitTurn(): Unit = {
    if (nextCallNanos != Long.MinValue) clock.sleepNanos(nextCallNanos - clock.nanoTime())
    callStartNanos = clock.nanoTime()
  }

  /** How long until the next call is allowed; 0 when it is now. */
  def nanosUntilTurn: Long =
    if (nextCallNanos == Long.MinValue) 0L else math.max(0L, nextCallNanos - clock.nanoTime())

  /**
   * Records a call that returned `bytes`; the next one waits long enough to keep both limits.
   * The rate counts from the call's start (the time the call took is part of the gap); the
   * minimum period from its end, keeping a margin under 5 calls a second. A call `atTip` lets
   * the gap grow (see [[paceAtTip]]); one behind the tip brings it back to the minimum.
   */
  def recordFetch(bytes: Long, atTip: Boolean = false): Unit = {
    val now = clock.nanoTime()
    val start = if (callStartNanos == Long.MinValue) now else callStartNanos
    val rateGapNanos = (bytes / bytesPerSecond * 1e9).toLong
    gapNanos = if (atTip) math.min(tipPeriodNanos, gapNanos * 2) else minGapNanos
    nextCallNanos = math.max(now + gapNanos, start + rateGapNanos)
    callStartNanos = Long.MinValue
  }

  /** Holds the next call back for `millis` (after throttling). */
  def backOff(millis: Long): Unit = {
    nextCallNanos = math.max(nextCallNanos, clock.nanoTime() + millis * 1000000L)
  }
}
