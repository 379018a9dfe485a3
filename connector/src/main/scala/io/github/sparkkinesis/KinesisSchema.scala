package io.github.sparkkinesis

import org.apache.spark.sql.types._

/** The columns every Kinesis record becomes, as in the Databricks Runtime connector. */
object KinesisSchema {
  val schema: StructType = StructType(Seq(
    StructField("partitionKey", StringType, nullable = false),
    StructField("data", BinaryType, nullable = false),
    StructField("stream", StringType, nullable = false),
    StructField("shardId", StringType, nullable = false),
    StructField("sequenceNumber", StringType, nullable = false),
    StructField("approximateArrivalTimestamp", TimestampType, nullable = false)))
}
