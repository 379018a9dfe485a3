// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis

import org.apache.spark.sql.types._

/**
 * The columns every user record becomes, as in the Databricks Runtime connector, and
 * `subSequenceNumber` last: a KPL aggregate's user records share the Kinesis record's sequence
 * number and are told apart by it (0 for records that were not aggregated). The stream's column
 * may take another name (`streamColumnName`: other connectors call it `streamName`); rows are
 * written by position, so only the name changes.
 */
object KinesisSchema {
  val StreamColumn = "stream"

  val schema: StructType = withStreamColumn(StreamColumn)

  def withStreamColumn(name: String): StructType = StructType(Seq(
      StructField("partitionKey", StringType, nullable = false),
      StructField("data", BinaryType, nullable = false),
      StructField(name, StringType, nullable = false),
      StructField("shardId", StringType, nullable = false),
      StructField("sequenceNumber", StringType, nullable = false),
      StructField("approximateArrivalTimestamp", TimestampType, nullable = false),
      StructField("subSequenceNumber", LongType, nullable = false)))
}
