// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.schemaregistry

import java.util.{Locale, UUID}

import scala.util.Try

import io.github.sparkkinesis.client.ConnectionConfig
import io.github.sparkkinesis.client.sdk.{GlueRegistryApi, SchemaRegistryException, SchemaVersion => RegistryVersion}
import io.github.sparkkinesis.options.{ConnectionOptions, OptionValues}

/**
 * The options of the schema registry functions. How to reach the registry: the connector's own
 * options (`region`, `endpoint` (here the Glue endpoint), `awsAccessKey`..., `profile`,
 * `roleArn`..., `awsCredentialsProvider`, the proxy ones). Which schema: `registryName`
 * (default `default-registry`, as the GSR serializers), `schemaName` and `schemaVersion` (a
 * version number, or `latest`, the default), or `schemaVersionId`; for Protobuf, `messageName`
 * (which message of the `.proto`). Keys are case-insensitive.
 */
object RegistryOptions {
  val RegistryName = "registryName"
  val SchemaName = "schemaName"
  val SchemaVersion = "schemaVersion"
  val SchemaVersionId = "schemaVersionId"
  val SchemaDefinition = "schemaDefinition"
  val Mode = "mode"
  val Compression = "compression"
  val AutoRegistration = "autoRegistration"
  val Compatibility = "compatibility"
  val MessageName = "messageName"

  val DefaultRegistry = "default-registry"
  val Modes = Seq("FAILFAST", "PERMISSIVE")
  val Compressions = Seq("none", "zlib")
  val Compatibilities =
    Seq("NONE", "DISABLED", "BACKWARD", "BACKWARD_ALL", "FORWARD", "FORWARD_ALL", "FULL", "FULL_ALL")

  /** Options as opts, looked up by any spelling of their key. */
  final class Given(options: Map[String, String]) {
    private val lower = options.map { case (k, v) => k.toLowerCase(Locale.ROOT) -> v }
    def raw: Map[String, String] = options
    def get(key: String): Option[String] = lower.get(key.toLowerCase(Locale.ROOT)).map(_.trim).filter(_.nonEmpty)
    def registry: String = get(RegistryName).getOrElse(DefaultRegistry)
    def connection: ConnectionConfig = ConnectionOptions.parse(new OptionValues(options))

    def oneOf(key: String, allowed: Seq[String], default: String): String = {
      val value = get(key).getOrElse(default)
      allowed.find(_.equalsIgnoreCase(value)).getOrElse(
        throw invalid(key, value, allowed.mkString(", ")))
    }

    def boolean(key: String, default: Boolean): Boolean = get(key).map(_.toLowerCase(Locale.ROOT)) match {
      case None => default
      case Some("true") => true
      case Some("false") => false
      case Some(other) => throw invalid(key, other, "true or false")
    }

    /** `mode`: whether a record that cannot be read gives null and its reason instead of failing. */
    def permissive: Boolean = oneOf(Mode, Modes, "FAILFAST") == "PERMISSIVE"

    /** The schema records are read as: `schemaDefinition`, else the version the options name. */
    def readerDefinition(dataFormat: String, function: String): String = get(SchemaDefinition).getOrElse {
      namedVersion(this, "to choose the schema records are read as", dataFormat, function).definition
    }

    def versionId: Option[UUID] = get(SchemaVersionId).map { v =>
      Try(UUID.fromString(v)).getOrElse(throw invalid(SchemaVersionId, v, "a schema version id (a UUID)"))
    }

    /** None: the latest version. */
    def versionNumber: Option[Long] = get(SchemaVersion) match {
      case None => None
      case Some(v) if v.equalsIgnoreCase("latest") => None
      case Some(v) => Try(v.toLong).toOption.filter(_ > 0).map(Some(_))
          .getOrElse(throw invalid(SchemaVersion, v, "a version number (1, 2, ...) or 'latest'"))
    }

    def schemaName(purpose: String): String = get(SchemaName).getOrElse(
      throw new IllegalArgumentException(s"Option '$SchemaName' is required $purpose"))
  }

  def invalid(key: String, value: String, allowed: String): IllegalArgumentException =
    new IllegalArgumentException(s"Invalid value '$value' for option '$key'; allowed: $allowed")

  /**
   * The schema version the options name, looked up now: by `schemaVersionId`, or by
   * `schemaName` and `schemaVersion` in `registryName`; it must be of `dataFormat`, which
   * `function` reads or writes.
   */
  def namedVersion(opts: Given, purpose: String, dataFormat: String, function: String): RegistryVersion = {
    val api = new GlueRegistryApi(opts.connection)
    val version = opts.versionId match {
      case Some(id) => api.schemaVersion(id)
      case None =>
        api.schemaVersion(opts.registry, opts.schemaName(s"$purpose (or '$SchemaVersionId')"), opts.versionNumber)
    }
    if (version.dataFormat != dataFormat)
      throw new SchemaRegistryException(
        s"Schema ${version.schemaArn} is ${version.dataFormat}; $function reads and writes $dataFormat")
    version
  }
}
