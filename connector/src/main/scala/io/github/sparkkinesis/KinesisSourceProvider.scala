package io.github.sparkkinesis

import java.util

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.connector.catalog.{Table, TableProvider}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.sources.DataSourceRegister
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import io.github.sparkkinesis.options.KinesisSourceOptions

/**
 * The entry point Spark finds for `format("kinesis")`. Options are parsed and validated here,
 * when the DataFrame is defined, so a mistake fails before any query starts.
 */
class KinesisSourceProvider extends TableProvider with DataSourceRegister {
  override def shortName(): String = "kinesis"

  override def inferSchema(options: CaseInsensitiveStringMap): StructType = {
    KinesisSourceOptions.parse(options.asCaseSensitiveMap().asScala.toMap)
    KinesisSchema.schema
  }

  override def getTable(
      schema: StructType,
      partitioning: Array[Transform],
      properties: util.Map[String, String]): Table =
    new KinesisTable(KinesisSourceOptions.parse(properties.asScala.toMap))
}
