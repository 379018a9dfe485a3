// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source.realtime

import org.apache.spark.TaskContext
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}
import org.apache.spark.sql.connector.read.streaming.{PartitionOffset, SupportsRealTimeRead}
import org.apache.spark.sql.connector.read.streaming.SupportsRealTimeRead.RecordStatus

import io.github.sparkkinesis.client.ConnectionConfig
import io.github.sparkkinesis.client.sdk.KinesisClients
import io.github.sparkkinesis.options.FetchSettings
import io.github.sparkkinesis.source.KinesisRowWriter

/** Makes the reader of each real-time task (Spark 4.2's `SupportsRealTimeRead`). */
final class KinesisRealTimeReaderFactory(connection: ConnectionConfig, fetch: FetchSettings)
  extends PartitionReaderFactory {

  override def createReader(partition: InputPartition): PartitionReader[InternalRow] = {
    val shardPartition = partition.asInstanceOf[RealTimeShardPartition]
    // The task uses the clients while it runs, besides the query's hold: a task still calling
    // Kinesis when its query stopped then closes what its calls built as it ends.
    val held = KinesisClients.lease(connection)
    try {
      new KinesisRealTimeReader(shardPartition, RealTimeShardReaders.acquire(shardPartition, connection, fetch),
        fetch.recordIds, held)
    } catch {
      case e: Throwable =>
        held.close()
        throw e
    }
  }
}

/**
 * A real-time task's reader: Spark calls `nextWithTimeout` until the batch's end, and takes
 * `getOffset` (the position after the last record returned) as the shard's end offset. It
 * returns no record once the batch's time is up, or as soon as a closed shard was read to its
 * end: that task ends early and the shard's children start with the next batch. So it does
 * when its EFO consumer was deregistered: the next batch registers it again and reads on.
 */
final class KinesisRealTimeReader(partition: RealTimeShardPartition, reader: RealTimeShardReader,
    recordIds: Boolean = false, held: AutoCloseable = () => ())
  extends SupportsRealTimeRead[InternalRow] {

  private val before = reader.stats
  private val rows = new KinesisRowWriter(partition.shard, recordIds)
  private var current: InternalRow = _

  override def nextWithTimeout(startTimeMs: java.lang.Long, timeoutMs: java.lang.Long): RecordStatus = {
    // Spark's times are wall-clock milliseconds; the reader waits on the monotonic clock.
    val remainingMs = startTimeMs + timeoutMs - System.currentTimeMillis()
    reader.next(System.nanoTime() + math.max(0L, remainingMs) * 1000000L) match {
      case Some(record) =>
        current = rows.write(record)
        RecordStatus.newStatusWithArrivalTimeMs(record.approximateArrivalMillis)
      case None => RecordStatus.newStatusWithoutArrivalTime(false)
    }
  }

  override def getOffset: PartitionOffset =
    ShardPartitionOffset(partition.shard, reader.position, RealTimeShardReaders.location, reader.stats.since(before),
      reader.consumerDeleted)

  override def get(): InternalRow = current

  /** Real-time tasks are read with `nextWithTimeout` only. */
  override def next(): Boolean =
    throw new IllegalStateException(s"the real-time reader of ${partition.shard} was used outside real-time mode")

  // Spark ends a task without asking the reader again once the batch's time is up, so a task
  // that was neither failed nor cancelled (the query stopped) ran to the batch's end.
  override def close(): Unit = {
    val cancelled = Option(TaskContext.get()).forall(t => t.isInterrupted() || t.isFailed())
    try RealTimeShardReaders.release(partition, reader, keep = !cancelled)
    finally held.close()
  }
}
