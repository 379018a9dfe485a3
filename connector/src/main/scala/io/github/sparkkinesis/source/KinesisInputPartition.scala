package io.github.sparkkinesis.source

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}
import org.apache.spark.unsafe.types.UTF8String

import io.github.sparkkinesis.client.{ConnectionConfig, KinesisClients, KinesisRecord}
import io.github.sparkkinesis.options.FetchSettings
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.polling.ShardRangeReader

/** The records of one shard after `start`, up to and including `endSequence`. */
final case class KinesisInputPartition(shard: ShardKey, start: ShardPosition, endSequence: String)
  extends InputPartition

final class KinesisPartitionReaderFactory(connection: ConnectionConfig, fetch: FetchSettings)
  extends PartitionReaderFactory {

  override def createReader(partition: InputPartition): PartitionReader[InternalRow] = {
    val p = partition.asInstanceOf[KinesisInputPartition]
    val records = new ShardRangeReader(KinesisClients.api(connection), p.shard, p.start, p.endSequence, fetch)
    new KinesisPartitionReader(p.shard, records)
  }
}

/** Turns records into rows of [[io.github.sparkkinesis.KinesisSchema]]. */
final class KinesisPartitionReader(shard: ShardKey, records: Iterator[KinesisRecord])
  extends PartitionReader[InternalRow] {

  private val stream = UTF8String.fromString(shard.stream)
  private val shardId = UTF8String.fromString(shard.shardId)
  private var current: KinesisRecord = _

  override def next(): Boolean = {
    val more = records.hasNext
    if (more) current = records.next()
    more
  }

  override def get(): InternalRow = new GenericInternalRow(Array[Any](
    UTF8String.fromString(current.partitionKey),
    current.data,
    stream,
    shardId,
    UTF8String.fromString(current.sequenceNumber),
    current.approximateArrivalMillis * 1000L))

  override def close(): Unit = ()
}
