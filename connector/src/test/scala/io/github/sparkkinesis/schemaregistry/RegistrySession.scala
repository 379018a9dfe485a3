// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.schemaregistry

import org.apache.spark.sql.SparkSession
import org.scalatest.{BeforeAndAfterAll, Suite}

/**
 * What the schema registry function suites share: a stand-in registry, a session with the
 * functions' own extension (as the connector's SQL extension adds them), and options that reach
 * the registry with fake keys.
 */
trait RegistrySession extends BeforeAndAfterAll { this: Suite =>
  protected var registry: StandInRegistry = _
  protected var spark: SparkSession = _

  override def beforeAll(): Unit = {
    super.beforeAll()
    registry = new StandInRegistry
    spark = SparkSession.builder().master("local[2]").appName(getClass.getSimpleName)
      .config("spark.ui.enabled", "false").withExtensions(SchemaRegistryFunctions.inject).getOrCreate()
  }

  override def afterAll(): Unit =
    try { spark.stop(); registry.close() }
    finally super.afterAll()

  protected def options(extra: (String, String)*): Map[String, String] = Map(
    "endpoint" -> registry.endpoint, "region" -> "us-east-1",
    "awsAccessKey" -> "AKIAEXAMPLE", "awsSecretKey" -> "secret") ++ extra
}
