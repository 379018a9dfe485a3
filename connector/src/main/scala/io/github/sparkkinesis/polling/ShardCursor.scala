// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.polling

import org.apache.spark.internal.Logging

import io.github.sparkkinesis.client.{
  IteratorExpiredException, KinesisApi, KinesisRecord, KplCounts, RecordBatch, ThrottledException
}
import io.github.sparkkinesis.client.failures.RetryPolicy
import io.github.sparkkinesis.kpl.RangeCheck
import io.github.sparkkinesis.options.FetchSettings
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.time.{Clock, SystemClock}
import io.github.sparkkinesis.reader.{ReadNotes, ShardReader}

/**
 * Reads one shard forward from a concrete position with GetRecords, keeping its position
 * concrete after every call. Handles the iterator's lifetime, pacing and throttling, so the
 * callers only decide when to stop.
 *
 * A fetch hands out at most `maxRecordsPerFetch` user records: the rest of a call's KPL
 * aggregates wait in the cursor for the next fetch, and the position in between names the
 * sub-sequence reached. A cursor started inside an aggregate reads it again and skips the
 * user records before its start.
 */
final class ShardCursor(
    api: KinesisApi,
    val shard: ShardKey,
    start: ShardPosition,
    settings: FetchSettings,
    clock: Clock = SystemClock,
    rangeCheck: Option[RangeCheck] = None) extends ShardReader with Logging {

  import ShardCursor._

  private val pacer = new FetchPacer(settings.minFetchPeriodMs, settings.maxFetchRateMBps, clock)
  private var iterator: Option[String] = None
  // Kinesis answered without a next iterator: the shard is closed and every record was returned.
  // (An iterator not asked for yet, or given up after a throttled first call, is None too.)
  private var closed = false
  private var current: ShardPosition = start
  private var limit = settings.maxRecordsPerFetch
  private var throttled = 0
  private var throttledInARow = 0 // reset by a call that gets through
  private var pending: Seq[KinesisRecord] = Nil // user records of the last call not handed out yet
  private var lastMillisBehind = 0L
  private val trimCheck = new TrimHorizonCheck(api, shard, settings.failOnDataLoss)
  private val notes = new ReadNotes(shard)

  /** How many records the next GetRecords asks for; halved after throttling, then regrown. */
  def recordsPerCall: Int = limit

  private var lastCallAtTip = false

  /**
   * Whether the last call reached the tip: a short page at MillisBehindLatest 0. An empty page
   * behind the tip is not (Kinesis returns those on sparse shards), and neither is a full page
   * at 0 (local Kinesis implementations report 0 for records of the same millisecond).
   */
  override def atTip: Boolean = lastCallAtTip && pending.isEmpty

  /** How often Kinesis throttled this cursor's calls. */
  override def throttleEvents: Int = throttled

  override def close(): Unit = ()

  override def paceAtTip(periodMs: Long): Unit = pacer.paceAtTip(periodMs)

  /** How long until the next GetRecords may be made (pacing, back-off); 0 when it may be now. */
  def nanosUntilNextCall: Long = pacer.nanosUntilTurn

  /** Where the next record would come from; a `ShardEnd` once the shard is done. */
  override def position: ShardPosition = current

  override def isEnded: Boolean = current.isInstanceOf[ShardPosition.ShardEnd]

  /** One GetRecords call (after waiting for its turn); the records follow [[position]]. */
  override def fetch(): RecordBatch = fetchUntil(Long.MaxValue)

  /**
   * [[fetch]], giving up at `deadlineNanos` (of the cursor's clock): when Kinesis throttles the
   * call and the back-off would end past it, this returns no records instead of sleeping (a
   * real-time task must end on time); the next fetch waits out the back-off and calls again,
   * still reading half as much per call. Throttled calls in a row are counted across fetches,
   * so a shard throttled again and again still fails after as many as [[fetch]] allows.
   */
  def fetchUntil(deadlineNanos: Long): RecordBatch = {
    require(!isEnded, s"shard $shard was already read to its end")
    if (pending.nonEmpty) return handOut(KplCounts.Zero)
    var expired = 0
    while (true) {
      try {
        val it = iterator.getOrElse(newIterator())
        iterator = Some(it)
        pacer.awaitTurn()
        val batch = api.getRecords(shard.stream, it, limit, rangeCheck)
        lastCallAtTip = batch.millisBehindLatest == 0 && batch.records.size < limit
        pacer.recordFetch(batch.bytes, lastCallAtTip)
        throttledInARow = 0
        limit = math.min(settings.maxRecordsPerFetch, limit * 2)
        iterator = batch.nextIterator
        closed = batch.nextIterator.isEmpty
        lastMillisBehind = batch.millisBehindLatest
        notes.aggregatesSplit(batch.kpl)
        // Only a cursor started inside an aggregate gets records it already handed out. Records
        // come in order, so when the first is new, all are.
        pending =
          if (batch.records.headOption.forall(_.isPast(current))) batch.records
          else batch.records.filter(_.isPast(current))
        return handOut(batch.kpl)
      } catch {
        case e: IteratorExpiredException if expired < MaxExpiredRetries =>
          expired += 1
          iterator = None // Ask again from the last concrete position.
          if (expired > 1) logWarning(s"Shard iterator of $shard expired again: ${e.getMessage}")
        case e: ThrottledException if throttledInARow < MaxThrottledRetries =>
          // As the Databricks connector does: read half as much per call, wait, and try again.
          throttledInARow += 1
          throttled += 1
          limit = math.max(1, limit / 2)
          val wait = Throttled.backOff.delayMs(throttledInARow - 1, RetryPolicy.uniform())
          logWarning(s"Hit rate limit on shard $shard. Sleeping for ${wait / 1000.0} seconds; " +
            s"reading at most $limit records per call. (${e.getMessage})")
          pacer.backOff(wait)
          if (pacer.nanosUntilTurn > deadlineNanos - clock.nanoTime()) return handOut(KplCounts.Zero)
          pacer.awaitTurn()
      }
    }
    throw new IllegalStateException("unreachable")
  }

  /** An iterator at the current position, after checking retention has not deleted records past it. */
  private def newIterator(): String = {
    trimCheck.check(current, () => { pacer.awaitTurn(); pacer.recordFetch(0L) }).foreach { from =>
      notes.dataLost()
      current = from
    }
    api.shardIterator(shard.stream, shard.shardId, current)
  }

  private def handOut(kpl: KplCounts): RecordBatch = {
    val (now, later) =
      if (pending.lengthCompare(settings.maxRecordsPerFetch) <= 0) (pending, Nil)
      else pending.splitAt(settings.maxRecordsPerFetch)
    pending = later
    now.lastOption.foreach(r => current = r.positionAfter)
    if (pending.isEmpty && closed) current = ShardPosition.ShardEnd(current.lastSequence)
    RecordBatch(now, if (isEnded) None else iterator.orElse(Some("")), lastMillisBehind, kpl, notes.takeLosses())
  }
}

object ShardCursor {
  private val Throttled = RetryPolicy.GetRecordsThrottled
  val MaxThrottledRetries: Int = Throttled.maxAttempts - 1
  // A fresh iterator expiring at once again means the clock is badly skewed; do not loop.
  val MaxExpiredRetries = 3
}
