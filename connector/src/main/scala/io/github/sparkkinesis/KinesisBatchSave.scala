// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis

import java.util

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, SQLContext, SaveMode}
import org.apache.spark.sql.connector.catalog.{Table, TableProvider}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.sources.BaseRelation
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import io.github.sparkkinesis.errors.KinesisErrors
import io.github.sparkkinesis.options.KinesisSinkOptions

/**
 * The batch writes of `df.write.format("kinesis")`, whatever their save mode.
 *
 * Spark refuses its default mode, ErrorIfExists, for a data source V2 table that can be
 * written in batch, and suggests Overwrite, which a stream cannot do. So the `kinesis` table
 * does not offer batch writes: Spark then hands every `df.write` to the provider's
 * `createRelation` (the V1 path, as for `format("kafka")`), which takes Append and
 * ErrorIfExists, refuses the other modes with the connector's own error, and writes through
 * this provider's table, which does offer batch writes: the one sink, with its metrics.
 */
object KinesisBatchSave {
  def save(mode: SaveMode, parameters: Map[String, String], data: DataFrame): Unit = mode match {
    case SaveMode.Append | SaveMode.ErrorIfExists =>
      data.write.format(classOf[KinesisBatchWriteProvider].getName).mode(SaveMode.Append).options(parameters).save()
    case other =>
      throw KinesisErrors.sinkSaveModeUnsupported(other.name())
  }

  /** What `createRelation` returns: the written DataFrame's columns; nothing reads it. */
  def relation(context: SQLContext, written: StructType): BaseRelation = new BaseRelation {
    override def sqlContext: SQLContext = context
    override def schema: StructType = written
  }
}

/** Not registered under a short name: only [[KinesisBatchSave]] uses it, by class name. */
class KinesisBatchWriteProvider extends TableProvider {
  override def supportsExternalMetadata(): Boolean = true

  override def inferSchema(options: CaseInsensitiveStringMap): StructType =
    throw new UnsupportedOperationException("KinesisBatchWriteProvider only writes")

  override def getTable(schema: StructType, partitioning: Array[Transform],
      properties: util.Map[String, String]): Table =
    KinesisTable.forWrite(KinesisSinkOptions.parse(properties.asScala.toMap), schema, batch = true)
}
