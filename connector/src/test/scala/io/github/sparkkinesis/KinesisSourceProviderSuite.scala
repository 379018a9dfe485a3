// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis

import scala.jdk.CollectionConverters._

import org.apache.spark.SparkThrowable
import org.apache.spark.sql.{SaveMode, SparkSession}
import org.apache.spark.sql.connector.catalog.TableCapability
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.types.{BinaryType, StringType, StructType}
import org.apache.spark.sql.util.CaseInsensitiveStringMap
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.errors.{KinesisOptionException, SparkThrowables}

/**
 * The provider tells a read from a write, and checks each when it is defined: reads at
 * `load()`, batch writes at `save()`, streaming writes at `start()`. Nothing here reaches
 * Kinesis: every case fails (or is inspected) before a query would send or read anything.
 */
class KinesisSourceProviderSuite extends AnyFunSuite with Matchers with BeforeAndAfterAll {

  private lazy val spark = SparkSession.builder().master("local[1]").appName("provider-suite")
    .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "1").getOrCreate()

  override def afterAll(): Unit =
    try spark.stop()
    finally super.afterAll()

  private val connection = Map("region" -> "us-east-1", "endpoint" -> "http://127.0.0.1:1")

  private def condition(e: Throwable): String = Iterator.iterate(e)(_.getCause).takeWhile(_ != null)
    .collectFirst {
      case s: SparkThrowable if Option(SparkThrowables.condition(s)).exists(_.startsWith("KINESIS_")) =>
        SparkThrowables.condition(s)
    }.getOrElse(fail(s"no KINESIS_ condition in $e"))

  private def keyed(n: Int) = spark.range(n).selectExpr("CAST(id AS STRING) AS partitionKey",
    "CAST(CAST(id AS STRING) AS BINARY) AS data")

  // ---- the provider on its own ----

  private val writeSchema = new StructType().add("partitionKey", StringType).add("data", BinaryType)

  test("a table whose schema the provider inferred is a read; one given a schema is a write") {
    val reading = new KinesisSourceProvider
    val options = new CaseInsensitiveStringMap((connection + ("streamName" -> "in")).asJava)
    val readSchema = reading.inferSchema(options)
    val read = reading.getTable(readSchema, Array.empty[Transform], options.asCaseSensitiveMap())
    read.name() shouldBe "KinesisV2[in]"
    read.schema() shouldBe KinesisSchema.schema

    val write = new KinesisSourceProvider().getTable(writeSchema, Array.empty[Transform],
      (connection + ("streamName" -> "out")).asJava)
    write.name() shouldBe "KinesisV2[out]"
    write.schema() shouldBe writeSchema
    // Batch writes go through createRelation (sink.KinesisBatchWrite), so Spark takes its default save mode.
    write.capabilities().asScala shouldBe Set(TableCapability.MICRO_BATCH_READ, TableCapability.BATCH_READ,
      TableCapability.STREAMING_WRITE, TableCapability.ACCEPT_ANY_SCHEMA)
    new KinesisSourceProvider().supportsExternalMetadata() shouldBe true
  }

  test("a read given a schema of its own is refused: the source's schema is fixed") {
    val table = new KinesisSourceProvider().getTable(KinesisSchema.schema, Array.empty[Transform],
      (connection + ("streamName" -> "in")).asJava)
    val e = intercept[IllegalArgumentException](table.asInstanceOf[KinesisTable].newScanBuilder(
        CaseInsensitiveStringMap.empty()))
    condition(e) shouldBe "KINESIS_SOURCE_SCHEMA_GIVEN"
  }

  // ---- reads fail at load() ----

  test("a bad read option fails at load()") {
    Seq(Map("streamName" -> "in", "maxFetchRate" -> "9") -> "KINESIS_INVALID_OPTION_VALUE",
      Map("streamName" -> "in", "maxPutRetries" -> "3") -> "KINESIS_OPTION_NOT_APPLICABLE",
      Map.empty[String, String] -> "KINESIS_MISSING_OPTION").foreach { case (options, expected) =>
      val e =
        intercept[KinesisOptionException](spark.readStream.format("kinesis").options(connection ++ options).load())
      condition(e) shouldBe expected
    }
  }

  test("awslabs' format name aws-kinesis is this connector, with awslabs' option names") {
    val awslabs = Map("kinesis.streamName" -> "in", "kinesis.region" -> "us-east-1",
      "kinesis.endpointUrl" -> "http://127.0.0.1:1")
    val read = spark.readStream.format("aws-kinesis").options(awslabs).load()
    read.schema.fieldNames should contain allOf ("partitionKey", "data", "stream", "shardId", "sequenceNumber")
    val e = intercept[KinesisOptionException](
      spark.readStream.format("aws-kinesis").options(awslabs + ("kinesis.getRecords.fetchIntervalMs" -> "x")).load())
    condition(e) shouldBe "KINESIS_INVALID_OPTION_VALUE"
  }

  test("with awslabs' jar on the classpath too, aws-kinesis fails naming both providers; kinesis stays this one") {
    // Spark takes the one provider of a name under org.apache.spark (awslabs' is) silently; with
    // both there it refuses to choose.
    val jar = java.nio.file.Files.createTempDirectory("awslabs-jar")
    val services = java.nio.file.Files.createDirectories(jar.resolve("META-INF/services"))
    java.nio.file.Files.write(services.resolve(classOf[org.apache.spark.sql.sources.DataSourceRegister].getName),
      classOf[org.apache.spark.sql.connector.kinesis.KinesisV2TableProvider].getName.getBytes("UTF-8"))
    val thread = Thread.currentThread()
    val before = thread.getContextClassLoader
    thread.setContextClassLoader(new java.net.URLClassLoader(Array(jar.toUri.toURL), before))
    try {
      val awslabs = Map("kinesis.streamName" -> "in", "kinesis.region" -> "us-east-1")
      val e = intercept[Exception](spark.readStream.format("aws-kinesis").options(awslabs).load())
      e.getMessage should include("Multiple sources found for aws-kinesis")
      e.getMessage should include(classOf[org.apache.spark.sql.connector.kinesis.KinesisV2TableProvider].getName)
      e.getMessage should include(classOf[org.apache.spark.sql.kinesis.aws.AwsKinesisSourceProvider].getName)
      spark.readStream.format("kinesis").options(connection + ("streamName" -> "in")).load()
        .schema.fieldNames should contain("shardId")
    } finally thread.setContextClassLoader(before)
  }

  // ---- batch writes fail at save() ----

  test("a batch write with a missing or mistyped column fails at save(), whatever the mode") {
    for (mode <- Seq(SaveMode.Append, SaveMode.ErrorIfExists)) {
      val missing = intercept[KinesisOptionException](spark.range(3)
          .selectExpr("CAST(CAST(id AS STRING) AS BINARY) AS data")
          .write.format("kinesis").mode(mode).options(connection + ("streamName" -> "out")).save())
      condition(missing) shouldBe "KINESIS_SINK_MISSING_COLUMN"
      missing.getMessage should include("'partitionKey'")

      val mistyped = intercept[KinesisOptionException](spark.range(3).selectExpr("id AS partitionKey", "id AS data")
          .write.format("kinesis").mode(mode).options(connection + ("streamName" -> "out")).save())
      condition(mistyped) shouldBe "KINESIS_SINK_INVALID_COLUMN_TYPE"
    }
  }

  test("a bad write option fails at save()") {
    Seq(Map("streamName" -> "out", "maxRecordsPerPut" -> "501") -> "KINESIS_INVALID_OPTION_VALUE",
      Map("streamName" -> "out", "initialPosition" -> "latest") -> "KINESIS_OPTION_NOT_APPLICABLE",
      Map("streamName" -> "out", "maxPutRetrys" -> "1") -> "KINESIS_UNKNOWN_OPTION",
      Map.empty[String, String] -> "KINESIS_SINK_MISSING_COLUMN").foreach { case (options, expected) =>
      val e = intercept[KinesisOptionException](keyed(2).write.format("kinesis").mode(SaveMode.Append)
          .options(connection ++ options).save())
      condition(e) shouldBe expected
    }
  }

  test("a batch write in mode Overwrite or Ignore is refused with the connector's error before anything is sent") {
    Seq(SaveMode.Ignore, SaveMode.Overwrite).foreach { mode =>
      val e = intercept[KinesisOptionException](keyed(2).write.format("kinesis").mode(mode)
          .options(connection + ("streamName" -> "out")).save())
      condition(e) shouldBe "KINESIS_SINK_SAVE_MODE_UNSUPPORTED"
      e.getMessage should include(s"save mode ${mode.name()}")
    }
  }

  // ---- streaming writes fail at start() ----

  test("a streaming write with a missing column or a bad option fails at start(), starting nothing") {
    val rate = spark.readStream.format("rate").option("rowsPerSecond", "1").load()
    val missing = intercept[KinesisOptionException](rate.selectExpr("CAST(value AS STRING) AS data")
        .writeStream.format("kinesis").options(connection + ("streamName" -> "out"))
        .option("checkpointLocation", "/tmp/never-used").start())
    condition(missing) shouldBe "KINESIS_SINK_MISSING_COLUMN"

    val badOption = intercept[KinesisOptionException](rate.selectExpr("CAST(value AS STRING) AS partitionKey",
        "CAST(value AS STRING) AS data").writeStream.format("kinesis")
        .options(connection + ("streamName" -> "out") + ("maxInFlightPuts" -> "0")).start())
    condition(badOption) shouldBe "KINESIS_INVALID_OPTION_VALUE"
    spark.streams.active shouldBe empty
  }

  test("streamColumnName renames the stream's column only, and no other column may be shadowed") {
    KinesisSchema.withStreamColumn("streamName").fieldNames shouldBe
      KinesisSchema.schema.fieldNames.map(n => if (n == KinesisSchema.StreamColumn) "streamName" else n)
    KinesisSchema(KinesisSchema.StreamColumn, recordIds = true).fieldNames
      .filterNot(_ == KinesisSchema.StreamColumn).toSeq shouldBe options.KinesisSourceOptions.OtherColumns
  }

  test("CREATE TABLE ... USING kinesis (the session catalog's schema inference) is refused, saying what to use") {
    val tableProperties = Map("provider" -> "kinesis", "streamName" -> "orders", "region" -> "us-east-1")
    val e = intercept[KinesisOptionException](
      new KinesisSourceProvider().inferSchema(new CaseInsensitiveStringMap(tableProperties.asJava)))
    condition(e) shouldBe "KINESIS_CATALOG_TABLE_UNSUPPORTED"
    e.getMessage should include("read_kinesis")
  }
}
