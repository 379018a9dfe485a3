package io.github.sparkkinesis.efo

import io.github.sparkkinesis.client.RecordBatch
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.reader.ShardReader

/** A prefetch task's reader over an enhanced fan-out subscription; waits up to `maxWaitMs` per fetch. */
final class SubscriptionShardReader(cursor: SubscriptionCursor, maxWaitMs: Long) extends ShardReader {
  private var lastAtTip = false

  override def shard: ShardKey = cursor.shard
  override def position: ShardPosition = cursor.position
  override def isEnded: Boolean = cursor.isEnded
  override def atTip: Boolean = lastAtTip
  override def throttleEvents: Int = 0 // a subscription is pushed to, never throttled per call

  override def fetch(): RecordBatch = {
    val batch = cursor.fetch(maxWaitMs)
    lastAtTip = batch.millisBehindLatest == 0
    batch
  }

  override def close(): Unit = cursor.close()
}
