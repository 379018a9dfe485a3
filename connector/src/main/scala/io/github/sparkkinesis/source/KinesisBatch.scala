// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import org.apache.spark.sql.connector.read.{Batch, InputPartition, PartitionReaderFactory}

import io.github.sparkkinesis.client.KinesisApi
import io.github.sparkkinesis.client.failures.RetryPolicy
import io.github.sparkkinesis.client.sdk.KinesisClients
import io.github.sparkkinesis.options.{EndingPosition, KinesisSourceOptions}
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.polling.LatestOffsetProbe

/**
 * `spark.read.format("kinesis")`: a bounded range of every shard, from the start position
 * (`initialPosition`, by default the trim horizon) to `endingPosition` (by default the tip
 * when the read is planned, found by reading ahead on the driver).
 */
final class KinesisBatch(options: KinesisSourceOptions, api: => KinesisApi) extends Batch {

  // Planned as a user of the connection's clients in the driver's JVM (see KinesisClients).
  private lazy val partitions: Array[InputPartition] = KinesisClients.using(options.connection) {
    val kinesis = api
    val listed = options.streamNames.flatMap(s =>
      RetryPolicy.ListShards.run(s"ListShards of stream '$s'")(kinesis.listShards(s, options.maxShardsPerDescribe))
        .map(d => ShardKey(s, d.shardId) -> d)).toMap
    val rangeChecks = RangeChecks.of(listed, RangeChecks.ranges(listed), options.outOfRangeUserRecords)
    val starts = StartPositions.of(options.batchStart, listed, System.currentTimeMillis())
    val ends: Map[ShardKey, ShardPosition] = options.endingPosition match {
      case EndingPosition.Positions(ends) => ends.shards
      case EndingPosition.Latest =>
        // Read to the tip however long that takes: a batch read is bounded by the tip, not by time.
        new LatestOffsetProbe(kinesis, options.fetch.copy(maxFetchDurationMs = KinesisBatch.MaxPlanningMs),
          rangeChecks = rangeChecks).advance(starts)
    }
    val ranges = starts.toSeq.sortBy(_._1).flatMap { case (shard, start) =>
      ends.get(shard).flatMap(ShardRange.between(shard, start, _, rangeChecks.get(shard)))
    }
    // Nothing is prefetched for a batch read: one task per shard.
    PartitionPlanner.plan(ranges, coalesced = Map.empty).toArray
  }

  override def planInputPartitions(): Array[InputPartition] = partitions

  override def createReaderFactory(): PartitionReaderFactory =
    new KinesisPartitionReaderFactory(options.connection, options.fetch)
}

object KinesisBatch {
  val MaxPlanningMs: Long = 24L * 3600 * 1000
}
