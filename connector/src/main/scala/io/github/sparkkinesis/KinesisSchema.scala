package io.github.sparkkinesis

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import io.github.sparkkinesis.client.KinesisRecord
import io.github.sparkkinesis.offsets.ShardKey

/** The columns every Kinesis record becomes, as in the Databricks Runtime connector. */
object KinesisSchema {
  val schema: StructType = StructType(Seq(
    StructField("partitionKey", StringType, nullable = false),
    StructField("data", BinaryType, nullable = false),
    StructField("stream", StringType, nullable = false),
    StructField("shardId", StringType, nullable = false),
    StructField("sequenceNumber", StringType, nullable = false),
    StructField("approximateArrivalTimestamp", TimestampType, nullable = false)))

  /** A record of `shard` as a row of [[schema]]. */
  def row(shard: ShardKey, record: KinesisRecord): InternalRow =
    new GenericInternalRow(Array[Any](
      UTF8String.fromString(record.partitionKey),
      record.data,
      UTF8String.fromString(shard.stream),
      UTF8String.fromString(shard.shardId),
      UTF8String.fromString(record.sequenceNumber),
      record.approximateArrivalMillis * 1000L))
}
