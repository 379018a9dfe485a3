// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source.realtime

import org.apache.spark.sql.connector.read.InputPartition
import org.apache.spark.sql.connector.read.streaming.PartitionOffset

import io.github.sparkkinesis.kpl.RangeCheck
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}

/**
 * One long-running task of a real-time batch: it reads `shard` from `start` until the batch
 * ends (or the shard does). It runs on the executor that read the shard last, whose reader
 * continues where the batch starts; `owners` names that executor for every shard, so a task
 * can close the readers its executor no longer owns. `rangeCheck` is the shard's, as in
 * micro-batch reads: KPL user records are kept or dropped by the same rules.
 */
final case class RealTimeShardPartition(
    shard: ShardKey,
    start: ShardPosition,
    /** Enhanced fan-out: the consumer ARN of the shard's stream; None when polling. */
    consumerArn: Option[String],
    streamInstance: String,
    owners: Map[ShardKey, String],
    rangeCheck: Option[RangeCheck] = None) extends InputPartition {
  override def preferredLocations(): Array[String] = owners.get(shard).toArray
}

/**
 * Where a real-time task stopped: the position after the last record it returned, which the
 * driver merges into the batch's end offset, and what it did (for the query's metrics).
 * `consumerDeleted`: the task ended early because its EFO consumer was deregistered.
 */
final case class ShardPartitionOffset(
    shard: ShardKey,
    position: ShardPosition,
    location: String,
    stats: ShardReadStats,
    consumerDeleted: Boolean = false) extends PartitionOffset

/**
 * Counts of one shard's reading in one task: records and bytes returned, Kinesis throttling,
 * SubscribeToShard calls (all, and those that renewed or retried a subscription), records found
 * deleted by retention before they were read (`failOnDataLoss` false); and at the task's end,
 * MillisBehindLatest (-1 when not known) and whether a subscription is open.
 */
final case class ShardReadStats(
    records: Long,
    bytes: Long,
    millisBehindLatest: Long,
    throttleEvents: Long,
    subscribeCalls: Long,
    resubscriptions: Long,
    liveSubscriptions: Long,
    dataLossEvents: Long = 0L) {

  /** What happened since `before` (an earlier snapshot of the same reader); gauges as now. */
  def since(before: ShardReadStats): ShardReadStats = copy(
    records = records - before.records,
    bytes = bytes - before.bytes,
    throttleEvents = throttleEvents - before.throttleEvents,
    subscribeCalls = subscribeCalls - before.subscribeCalls,
    resubscriptions = resubscriptions - before.resubscriptions,
    dataLossEvents = dataLossEvents - before.dataLossEvents)
}
