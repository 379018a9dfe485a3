// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source.realtime

import scala.collection.mutable

import io.github.sparkkinesis.client.{KinesisRecord, RecordBatch}
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.time.{Clock, SystemClock}
import io.github.sparkkinesis.reader.ShardReader

/**
 * Hands out the records of one shard one at a time, as a real-time task asks for them, and
 * knows the exact position after the last one handed out (ARCHITECTURE.md invariant 1): that
 * is the task's offset when the batch ends, whatever the feed fetched beyond it. The records
 * fetched and not yet handed out stay with the reader, which the executor keeps between
 * batches (see [[RealTimeShardReaders]]), so the next batch's task continues exactly there
 * with the same subscription or shard iterator.
 */
final class RealTimeShardReader(
    val shard: ShardKey,
    start: ShardPosition,
    feed: ShardFeed,
    clock: Clock = SystemClock) extends ShardReader {

  private val pending = mutable.Queue.empty[KinesisRecord]
  private var handedOut: ShardPosition = start
  private var recordCount = 0L
  private var byteCount = 0L

  /** After the last record handed out; a `ShardEnd` once every record of a closed shard was. */
  override def position: ShardPosition =
    if (pending.isEmpty && feed.isEnded) ShardPosition.ShardEnd(handedOut.lastSequence) else handedOut

  override def isEnded: Boolean = position.isInstanceOf[ShardPosition.ShardEnd]

  override def atTip: Boolean = pending.isEmpty && feed.millisBehindLatest.contains(0L)

  override def throttleEvents: Int = feed.throttleEvents

  /** Every record fetched was handed out, and the feed reads no more: its EFO consumer was deregistered. */
  def consumerDeleted: Boolean = pending.isEmpty && feed.consumerDeleted

  /**
   * The next record, waiting for one until `deadlineNanos` (of the reader's clock); None when
   * the deadline passed first, the shard ended or the feed's consumer was deregistered.
   */
  def next(deadlineNanos: Long): Option[KinesisRecord] = {
    while (pending.isEmpty && !feed.isEnded && !feed.consumerDeleted && clock.nanoTime() < deadlineNanos) {
      pending ++= feed.fetch(deadlineNanos - clock.nanoTime())
    }
    if (pending.isEmpty) None else Some(handOut(pending.dequeue()))
  }

  /** Every record fetched and not handed out, and what a short wait brings (the prefetch contract). */
  override def fetch(): RecordBatch = {
    if (pending.isEmpty && !feed.isEnded) pending ++= feed.fetch(RealTimeShardReader.FetchWaitNanos)
    val records = pending.toList
    pending.clear()
    records.foreach(handOut)
    RecordBatch(records, if (isEnded) None else handedOut.lastSequence.orElse(Some("")),
      feed.millisBehindLatest.getOrElse(-1L))
  }

  /** What this reader did in its whole life, for the task's report. */
  def stats: ShardReadStats = {
    val subscriptions = feed.subscriptions
    ShardReadStats(recordCount, byteCount, feed.millisBehindLatest.getOrElse(-1L), feed.throttleEvents,
      subscriptions.calls, subscriptions.renewals, if (subscriptions.open) 1 else 0, feed.dataLossEvents)
  }

  override def close(): Unit = feed.close()

  private def handOut(record: KinesisRecord): KinesisRecord = {
    handedOut = record.positionAfter
    recordCount += 1
    byteCount += record.bytes
    record
  }
}

object RealTimeShardReader {
  val FetchWaitNanos: Long = 200L * 1000000L
}
