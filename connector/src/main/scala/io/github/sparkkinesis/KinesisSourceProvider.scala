package io.github.sparkkinesis

import java.util

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.connector.catalog.{Table, TableProvider}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.sources.DataSourceRegister
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import io.github.sparkkinesis.options.{KinesisSinkOptions, KinesisSourceOptions}

/**
 * The entry point Spark finds for `format("kinesis")`, for reading and writing. Options are
 * parsed and validated when the DataFrame (`load()`) or the write (`save()`, `start()`) is
 * defined, so a mistake fails before any query starts.
 *
 * Spark asks a provider that takes external metadata to infer a schema only for a read; both
 * writers hand it the schema of the DataFrame they write instead. That is how the same
 * `getTable` tells a read, checked against the source options, from a write, checked against
 * the sink options and the written columns. Spark makes a provider instance per read or write.
 *
 * Batch writes go through data source V2 and so need `mode("append")`: Spark 4 refuses its
 * default mode, ErrorIfExists, for a V2 table that can be written in batch.
 */
class KinesisSourceProvider extends TableProvider with DataSourceRegister {
  @volatile private var schemaInferredForRead = false

  override def shortName(): String = "kinesis"

  override def supportsExternalMetadata(): Boolean = true

  override def inferSchema(options: CaseInsensitiveStringMap): StructType = {
    KinesisSourceOptions.parse(options.asCaseSensitiveMap().asScala.toMap)
    schemaInferredForRead = true
    KinesisSchema.schema
  }

  override def getTable(
      schema: StructType,
      partitioning: Array[Transform],
      properties: util.Map[String, String]): Table = {
    val options = properties.asScala.toMap
    if (schemaInferredForRead) KinesisTable.forRead(KinesisSourceOptions.parse(options))
    else KinesisTable.forWrite(KinesisSinkOptions.parse(options), schema)
  }
}
