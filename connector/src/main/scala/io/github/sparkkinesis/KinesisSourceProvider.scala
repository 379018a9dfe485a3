package io.github.sparkkinesis

import java.util

import scala.jdk.CollectionConverters._

import org.apache.spark.internal.Logging
import org.apache.spark.sql.connector.catalog.{Table, TableProvider}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.sources.DataSourceRegister
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import io.github.sparkkinesis.options.{KinesisOptions, KinesisSourceOptions}

/**
 * The entry point Spark finds for `format("kinesis")`. Options are parsed and validated here,
 * when the DataFrame is defined, so a mistake fails before any query starts.
 */
class KinesisSourceProvider extends TableProvider with DataSourceRegister with Logging {
  override def shortName(): String = "kinesis"

  override def inferSchema(options: CaseInsensitiveStringMap): StructType = {
    val named = options.asCaseSensitiveMap().asScala.toMap
    KinesisSourceOptions.parse(named)
    KinesisSourceProvider.warnIfSecretsShowInPlans(named.keys).foreach(logWarning(_))
    KinesisSchema.schema
  }

  override def getTable(
      schema: StructType,
      partitioning: Array[Transform],
      properties: util.Map[String, String]): Table =
    new KinesisTable(KinesisSourceOptions.parse(properties.asScala.toMap))
}

object KinesisSourceProvider {
  /**
   * Spark itself prints a data source's options in query plans (`explain`, the SQL tab of the
   * UI), masking those whose names match `spark.sql.redaction.options.regex` or
   * `spark.redaction.regex`. The defaults mask every secret option of this connector
   * (awsSecretKey, awsSessionToken, awsAccessKey); a narrowed pattern would not, and the
   * connector cannot stop Spark from printing them: it says so, without the values.
   */
  private[sparkkinesis] def warnIfSecretsShowInPlans(optionNames: Iterable[String]): Option[String] = {
    val secrets = optionNames.filter(KinesisOptions.isSecret).toSeq.sorted
    val shown = SQLConf.get.redactOptions(secrets.map(_ -> "value").toMap).collect {
      case (name, "value") => name
    }.toSeq.sorted
    if (shown.isEmpty) None
    else Some(s"The values of option(s) ${shown.mkString(", ")} will show in query plans (explain, " +
      "the Spark UI): Spark masks options whose names match spark.redaction.regex or " +
      "spark.sql.redaction.options.regex, and the current patterns do not match these. Restore " +
      "the default spark.redaction.regex or use the default credential chain or roleArn instead.")
  }
}
