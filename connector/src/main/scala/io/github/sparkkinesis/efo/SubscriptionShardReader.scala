// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.efo

import io.github.sparkkinesis.client.{KinesisRecord, RecordBatch}
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.reader.ShardReader
import io.github.sparkkinesis.threads.Doorbell

/**
 * A prefetch task's reader over an enhanced fan-out subscription; waits up to `maxWaitMs` per
 * fetch. Like polling, a fetch hands out at most `maxRecords` user records; the rest of what
 * the subscription delivered (KPL aggregates make many) waits for the next fetch, and the
 * position in between names the sub-sequence reached. Given a [[Doorbell]], a fetch at the tip
 * does not wait: the task waits on the bell, which the subscription rings when records arrive.
 */
final class SubscriptionShardReader(cursor: SubscriptionCursor, maxWaitMs: Long, maxRecords: Int = Int.MaxValue)
  extends ShardReader {
  private var lastAtTip = false
  private var pending: Seq[KinesisRecord] = Nil
  private var handedOut: ShardPosition = cursor.position
  private var bell: Option[Doorbell] = None

  override def shard: ShardKey = cursor.shard
  override def position: ShardPosition = if (pending.isEmpty) cursor.position else handedOut
  override def isEnded: Boolean = pending.isEmpty && cursor.isEnded
  override def atTip: Boolean = lastAtTip && pending.isEmpty
  override def consumer: Option[String] = Some(cursor.consumerArn)
  override def throttleEvents: Int = 0 // a subscription is pushed to, never throttled per call
  override def pushed: Boolean = true

  override def wakeOnArrival(bell: Doorbell): Unit = {
    this.bell = Some(bell)
    cursor.onArrival(() => bell.ring())
  }

  override def fetch(): RecordBatch = {
    val batch = if (pending.nonEmpty) RecordBatch(Nil, Some(""), SubscriptionCursor.UnknownMillisBehind)
    else {
      val received = cursor.fetch(if (lastAtTip && bell.isDefined) 0L else maxWaitMs)
      lastAtTip = received.millisBehindLatest == 0
      received
    }
    val all = if (pending.isEmpty) batch.records else pending ++ batch.records
    val (now, later) = if (all.lengthCompare(maxRecords) <= 0) (all, Nil) else all.splitAt(maxRecords)
    pending = later
    now.lastOption.foreach(r => handedOut = r.positionAfter)
    batch.copy(records = now)
  }

  override def close(): Unit = cursor.close()
}
