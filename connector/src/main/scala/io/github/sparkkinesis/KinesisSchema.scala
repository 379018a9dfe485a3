// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis

import org.apache.spark.sql.types._

import io.github.sparkkinesis.options.KinesisSourceOptions

/**
 * The columns every user record becomes, as in the Databricks Runtime connector, and
 * `subSequenceNumber` last: a KPL aggregate's user records share the Kinesis record's sequence
 * number and are told apart by it (0 for records that were not aggregated). The stream's column
 * may take another name (`streamColumnName`: other connectors call it `streamName`); rows are
 * written by position, so only the name changes. With `includeRecordIds`, a last column
 * `recordId` holds the id a writer tagged the record with (null for records without one).
 */
object KinesisSchema {
  val StreamColumn = "stream"
  val RecordIdColumn = "recordId"

  val schema: StructType = withStreamColumn(StreamColumn)

  /** The columns of the rows a read with these options returns. */
  def of(options: KinesisSourceOptions): StructType = apply(options.streamColumnName, options.fetch.recordIds)

  def apply(streamColumn: String, recordIds: Boolean): StructType = {
    val columns = withStreamColumn(streamColumn)
    if (recordIds) columns.add(StructField(RecordIdColumn, StringType, nullable = true)) else columns
  }

  def withStreamColumn(name: String): StructType = StructType(Seq(
      StructField("partitionKey", StringType, nullable = false),
      StructField("data", BinaryType, nullable = false),
      StructField(name, StringType, nullable = false),
      StructField("shardId", StringType, nullable = false),
      StructField("sequenceNumber", StringType, nullable = false),
      StructField("approximateArrivalTimestamp", TimestampType, nullable = false),
      StructField("subSequenceNumber", LongType, nullable = false)))
}
