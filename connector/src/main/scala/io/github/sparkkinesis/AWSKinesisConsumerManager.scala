// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis

import java.sql.Timestamp
import java.util.Locale

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.types.{StringType, StructField, StructType, TimestampType}

import io.github.sparkkinesis.client.{ConnectionConfig, ConsumerInfo}
import io.github.sparkkinesis.client.sdk.KinesisClients
import io.github.sparkkinesis.efo.ConsumerRegistry
import io.github.sparkkinesis.errors.KinesisErrors
import io.github.sparkkinesis.options.{ConnectionOptions, KinesisOptions, OptionValues}

/**
 * Lists, registers and deregisters the enhanced fan-out consumers of a stream, as the
 * Databricks Runtime's utility of the same name does. Registered consumers cost money every
 * hour: use it to find and remove the ones no query uses any more.
 *
 * {{{
 * import io.github.sparkkinesis.AWSKinesisConsumerManager
 *
 * val manager = AWSKinesisConsumerManager.newManager()
 *   .option("awsAccessKey", awsAccessKeyId)
 *   .option("awsSecretKey", awsSecretKey)
 *   .option("region", kinesisRegion)
 *   .create()
 * val consumers = manager.listConsumers("<stream name>")
 * val consumerARN = manager.registerConsumer("<stream name>", "<consumer name>")
 * manager.deregisterConsumer("<stream name>", "<consumer name>")
 * }}}
 *
 * Consumer names are full names, as Kinesis and [[listConsumers]] show them: no
 * consumerNamePrefix is added (a query with consumerName `orders` reads with the consumer
 * `sparkkinesis_orders`, and that is the name to deregister).
 */
final class AWSKinesisConsumerManager private (
    connection: ConnectionConfig,
    registry: ConsumerRegistry) {

  /**
   * The consumers of `streamName` as a DataFrame of the active Spark session, with columns
   * consumerName, consumerARN, consumerStatus and consumerCreationTimestamp.
   */
  def listConsumers(streamName: String): DataFrame = {
    val rows = listConsumersAsSeq(streamName).map { c =>
      Row(c.name, c.arn, c.status, Option(c.creationTimestamp).map(Timestamp.from).orNull)
    }
    SparkSession.active.createDataFrame(rows.asJava, AWSKinesisConsumerManager.ConsumerSchema)
  }

  /** The consumers of `streamName`, oldest first; needs no Spark session. */
  def listConsumersAsSeq(streamName: String): Seq[ConsumerInfo] = KinesisClients.using(connection) {
    registry.list(streamName).sortBy(c => (Option(c.creationTimestamp).map(_.toEpochMilli).getOrElse(0L), c.name))
  }

  /**
   * Registers the consumer `consumerName` of `streamName`, or finds it if it exists, waits
   * until it is ACTIVE, and returns its ARN.
   */
  def registerConsumer(streamName: String, consumerName: String): String =
    KinesisClients.using(connection)(registry.resolve(streamName, consumerName))

  /**
   * Deregisters the consumer `consumerName` of `streamName`; Kinesis then deletes it within
   * seconds. Fails with KINESIS_EFO_CONSUMER_NOT_FOUND if the stream has no such consumer.
   */
  def deregisterConsumer(streamName: String, consumerName: String): Unit =
    if (!KinesisClients.using(connection)(registry.deregister(streamName, consumerName))) {
      throw KinesisErrors.efoConsumerNotFound(streamName, consumerName, connection.where)
    }

  /** Where requests go: the endpoint or region (never credentials). */
  def where: String = connection.where

  override def toString: String = s"AWSKinesisConsumerManager($where)"
}

object AWSKinesisConsumerManager {
  import KinesisOptions._

  val ConsumerSchema: StructType = StructType(Seq(
      StructField("consumerName", StringType, nullable = false),
      StructField("consumerARN", StringType, nullable = false),
      StructField("consumerStatus", StringType, nullable = false),
      StructField("consumerCreationTimestamp", TimestampType, nullable = true)))

  /** The options the manager takes: how to reach AWS, as the source takes them. */
  val Options: Seq[OptionSpec] = Seq(Region, Endpoint, AwsAccessKey, AwsSecretKey, AwsSessionToken,
    RoleArn, RoleExternalId, RoleSessionName, StsEndpoint, Profile, AwsCredentialsProvider,
    AwsCredentialsProviderSecret,
    ProxyHost, ProxyPort, ProxyUsername, ProxyPassword, NonProxyHosts)

  def newManager(): Builder = new Builder(Map.empty)

  /** A manager on a given registry (a fake one in tests). */
  private[sparkkinesis] def withRegistry(connection: ConnectionConfig, registry: ConsumerRegistry) =
    new AWSKinesisConsumerManager(connection, registry)

  /** Collects options; [[create]] checks them as the source does. */
  final class Builder private[AWSKinesisConsumerManager] (options: Map[String, String]) {

    /** Sets an option (case-insensitive name), one of [[AWSKinesisConsumerManager.Options]]. */
    def option(key: String, value: String): Builder = {
      require(key != null, "the option name must not be null")
      new Builder(options.filter { case (k, _) => !k.equalsIgnoreCase(key) } + (key -> value))
    }

    def options(values: Map[String, String]): Builder = values.foldLeft(this) { case (b, (k, v)) => b.option(k, v) }

    def options(values: java.util.Map[String, String]): Builder = options(values.asScala.toMap)

    /**
     * A manager connected as the options say. An unknown option is rejected with the closest
     * known name; a bad value names the option and what is allowed.
     */
    def create(): AWSKinesisConsumerManager = {
      val connection = parse(options)
      new AWSKinesisConsumerManager(connection, ConsumerRegistry(connection))
    }

    // The Databricks EFO blog's snippet calls these on the builder, without create().
    def listConsumers(streamName: String): DataFrame = create().listConsumers(streamName)
    def registerConsumer(streamName: String, consumerName: String): String =
      create().registerConsumer(streamName, consumerName)
    def deregisterConsumer(streamName: String, consumerName: String): Unit =
      create().deregisterConsumer(streamName, consumerName)

    override def toString: String = {
      val shown = options.toSeq.sortBy(_._1.toLowerCase(Locale.ROOT)).map { case (k, v) =>
        if (isSecret(k)) s"$k=<redacted>" else s"$k=$v"
      }
      shown.mkString("AWSKinesisConsumerManager.Builder(", ", ", ")")
    }
  }

  private[sparkkinesis] def parse(options: Map[String, String]): ConnectionConfig = {
    options.keys.find(k => !Options.exists(_.key == k.toLowerCase(Locale.ROOT))).foreach { k =>
      throw KinesisErrors.unknownOption(k, suggest(k, Options))
    }
    ConnectionOptions.parse(new OptionValues(options))
  }
}
