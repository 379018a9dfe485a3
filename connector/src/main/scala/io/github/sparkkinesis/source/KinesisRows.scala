package io.github.sparkkinesis.source

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.unsafe.types.UTF8String

import io.github.sparkkinesis.client.KinesisRecord
import io.github.sparkkinesis.offsets.ShardKey

/** Records as rows of the source's schema (`KinesisSchema`), for every read path. */
object KinesisRows {
  def row(shard: ShardKey, record: KinesisRecord): InternalRow =
    new GenericInternalRow(Array[Any](
      UTF8String.fromString(record.partitionKey),
      record.data,
      UTF8String.fromString(shard.stream),
      UTF8String.fromString(shard.shardId),
      UTF8String.fromString(record.sequenceNumber),
      record.approximateArrivalMillis * 1000L))
}
