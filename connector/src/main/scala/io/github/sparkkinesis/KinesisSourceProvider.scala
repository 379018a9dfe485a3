// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis

import java.util

import scala.jdk.CollectionConverters._

import org.apache.spark.internal.Logging
import org.apache.spark.sql.connector.catalog.{Table, TableCatalog, TableProvider}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.{DataFrame, SQLContext, SaveMode}
import org.apache.spark.sql.sources.{BaseRelation, CreatableRelationProvider, DataSourceRegister}
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import io.github.sparkkinesis.errors.KinesisErrors
import io.github.sparkkinesis.options.{KinesisOptions, KinesisSinkOptions, KinesisSourceOptions, SecretsInPlans}

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
 * Batch writes (`df.write`) come in through `createRelation`, with any save mode; see
 * [[KinesisBatchSave]].
 */
class KinesisSourceProvider extends TableProvider with CreatableRelationProvider with DataSourceRegister
  with Logging {
  @volatile private var schemaInferredForRead = false

  override def shortName(): String = "kinesis"

  override def supportsExternalMetadata(): Boolean = true

  override def inferSchema(options: CaseInsensitiveStringMap): StructType = {
    // Spark's session catalog asks for the schema of CREATE TABLE ... USING kinesis with the
    // table's properties among the options; such a table would be read as a write (see above).
    if (options.containsKey(TableCatalog.PROP_PROVIDER)) throw KinesisErrors.catalogTableUnsupported()
    val named = options.asCaseSensitiveMap().asScala.toMap
    val parsed = KinesisSourceOptions.parse(named, KinesisSourceProvider.sessionConf())
    SecretsInPlans.mask(named.keys)
    schemaInferredForRead = true
    KinesisSchema.of(parsed)
  }

  override def getTable(
      schema: StructType,
      partitioning: Array[Transform],
      properties: util.Map[String, String]): Table = {
    val options = properties.asScala.toMap
    if (schemaInferredForRead)
      KinesisTable.forRead(KinesisSourceOptions.parse(options, KinesisSourceProvider.sessionConf()))
    else {
      val sinkOptions = KinesisSinkOptions.parse(options)
      SecretsInPlans.mask(options.keys)
      KinesisTable.forWrite(sinkOptions, schema)
    }
  }

  override def createRelation(sqlContext: SQLContext, mode: SaveMode, parameters: Map[String, String],
      data: DataFrame): BaseRelation = {
    KinesisBatchSave.save(mode, parameters, data)
    KinesisBatchSave.relation(sqlContext, data.schema)
  }
}

object KinesisSourceProvider {
  /**
   * The session's settings of the options that have a Spark conf (`spark.sparkkinesis.*`): set
   * with `spark.conf.set`, or for a whole cluster in its Spark configuration, which every
   * session's SQL conf starts from.
   */
  private[sparkkinesis] def sessionConf(): Map[String, String] =
    KinesisOptions.sessionConfs.flatMap(key => Option(SQLConf.get.getConfString(key, null)).map(key -> _)).toMap
}
