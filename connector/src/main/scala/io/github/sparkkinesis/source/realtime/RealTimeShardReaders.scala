// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source.realtime

import org.apache.spark.internal.Logging
import org.apache.spark.sql.kinesis.KinesisBlockStore

import io.github.sparkkinesis.client.ConnectionConfig
import io.github.sparkkinesis.client.sdk.KinesisClients
import io.github.sparkkinesis.efo.EfoMetrics
import io.github.sparkkinesis.options.FetchSettings
import io.github.sparkkinesis.polling.ShardCursor
import io.github.sparkkinesis.time.SystemClock
import io.github.sparkkinesis.prefetch.{ExecutorCursors, SubscriptionCursors}

/**
 * The executor side of real-time reads: a task takes its shard's reader from the executor's
 * cache ([[ExecutorCursors]]) when the last batch's task left it exactly where this batch
 * starts, else makes a new one; a task that ran to the batch's end gives the reader back, so
 * an EFO subscription stays open across batches instead of being renewed every batch (which
 * the 5-second repeat rule would hold back). A task that failed or was cancelled (the query
 * stopped) closes its reader. A task that starts after its query stopped reads nothing.
 */
private[realtime] object RealTimeShardReaders extends Logging {

  def acquire(
      partition: RealTimeShardPartition, connection: ConnectionConfig, fetch: FetchSettings): RealTimeShardReader = {
    if (ExecutorCursors.isStopped(partition.streamInstance))
      return new RealTimeShardReader(partition.shard, partition.start,
        new StoppedQueryFeed(partition.start, SystemClock))
    val here = location
    ExecutorCursors.holdClients(partition.streamInstance, connection)
    ExecutorCursors.releaseUnowned(partition.streamInstance, here, partition.owners, Set(partition.shard))
    val reader = ExecutorCursors.acquire(partition.streamInstance, partition.shard, partition.start) {
      newReader(partition, connection, fetch)
    }
    reader.asInstanceOf[RealTimeShardReader]
  }

  def release(partition: RealTimeShardPartition, reader: RealTimeShardReader, keep: Boolean): Unit =
    if (keep && !reader.isEnded && !reader.consumerDeleted) ExecutorCursors.release(partition.streamInstance, reader)
    else reader.close()

  /** This executor, as a Spark task location. */
  def location: String = KinesisBlockStore.thisExecutorLocation

  private def newReader(partition: RealTimeShardPartition, connection: ConnectionConfig,
      fetch: FetchSettings): RealTimeShardReader = {
    val shard = partition.shard
    val feed = partition.consumerArn match {
      case Some(arn) =>
        // Counters of this reader alone: the task reports them with its offset.
        val metrics = new EfoMetrics
        val cursor =
          SubscriptionCursors.forQuery(connection, shard, arn, partition.start, fetch.failOnDataLoss, metrics,
            partition.rangeCheck)
        new SubscriptionFeed(cursor, metrics)
      case None =>
        val cursor = new ShardCursor(KinesisClients.api(connection), shard, partition.start, fetch, SystemClock,
          partition.rangeCheck)
        new PollingFeed(cursor, SystemClock)
    }
    logInfo(s"Real-time reader of $shard starts at ${partition.start}")
    new RealTimeShardReader(shard, partition.start, feed)
  }
}
