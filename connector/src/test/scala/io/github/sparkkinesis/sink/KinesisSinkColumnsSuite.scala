// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import java.nio.charset.StandardCharsets

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.KinesisSchema
import io.github.sparkkinesis.errors.{KinesisConnectorException, KinesisOptionException}

class KinesisSinkColumnsSuite extends AnyFunSuite with Matchers {

  private def schema(fields: (String, DataType)*): StructType =
    StructType(fields.map { case (name, t) => StructField(name, t) })

  private val keyAndData = schema("partitionKey" -> StringType, "data" -> BinaryType)

  private def missing(s: StructType, streamNameGiven: Boolean = true): KinesisOptionException =
    intercept[KinesisOptionException](KinesisSinkColumns.resolve(s, streamNameGiven))

  private def row(values: Any*): InternalRow = InternalRow(values.map {
    case s: String => UTF8String.fromString(s)
    case other => other
  }: _*)

  private def rowError(columns: KinesisSinkColumns, r: InternalRow,
      stream: Option[String] = Some("s")): KinesisConnectorException =
    intercept[KinesisConnectorException](columns.record(r, stream))

  // ---- the columns, checked when the write is defined ----

  test("data and partitionKey are found by name, in any order, other columns ignored") {
    val s = schema("extra" -> IntegerType, "data" -> BinaryType, "partitionKey" -> StringType)
    KinesisSinkColumns.resolve(s, streamNameGiven = true) shouldBe
      KinesisSinkColumns(data = 1, dataIsString = false, partitionKey = 2, explicitHashKey = None, stream = None)
  }

  test("data may be a string; names match regardless of case, as in Spark") {
    val s = schema("PARTITIONKEY" -> StringType, "Data" -> StringType)
    val columns = KinesisSinkColumns.resolve(s, streamNameGiven = true)
    columns.dataIsString shouldBe true
    columns.partitionKey shouldBe 0
  }

  test("the source's own schema can be written as it is") {
    val columns = KinesisSinkColumns.resolve(KinesisSchema.schema, streamNameGiven = false)
    columns.stream shouldBe Some(2)
  }

  test("explicitHashKey and stream are used when present") {
    val s = keyAndData.add("explicitHashKey", StringType).add("stream", StringType)
    val columns = KinesisSinkColumns.resolve(s, streamNameGiven = false)
    columns.explicitHashKey shouldBe Some(2)
    columns.stream shouldBe Some(3)
    KinesisSinkColumns.resolve(s, streamNameGiven = true).stream shouldBe None // streamName wins.
  }

  test("a missing data column is named, with what it holds and the columns there are") {
    val e = missing(schema("partitionKey" -> StringType, "value" -> StringType))
    e.getCondition shouldBe "KINESIS_SINK_MISSING_COLUMN"
    e.getMessage should include("no column 'data'")
    e.getMessage should include("to_json(struct(*)) AS data")
    e.getMessage should include("'partitionKey', 'value'")
  }

  test("a missing partitionKey column is named, with how to make one") {
    val e = missing(schema("data" -> BinaryType))
    e.getMessage should include("no column 'partitionKey'")
    e.getMessage should include("CAST(id AS STRING) AS partitionKey")
  }

  test("without streamName, a stream column is needed") {
    val e = missing(keyAndData, streamNameGiven = false)
    e.getMessage should include("no column 'stream'")
    e.getMessage should include("'streamName'")
  }

  test("a column of the wrong type is named with its type and the type it must have") {
    val cases = Seq(
      schema("partitionKey" -> StringType, "data" -> IntegerType) -> ("data", "INT", "BINARY or STRING"),
      schema("partitionKey" -> LongType, "data" -> BinaryType) -> ("partitionKey", "BIGINT", "STRING"),
      keyAndData.add("explicitHashKey", DecimalType(38, 0)) -> ("explicitHashKey", "DECIMAL(38,0)", "STRING"),
      schema("partitionKey" -> StringType, "data" -> new StructType().add("a", IntegerType)) ->
        ("data", "STRUCT<a: INT>", "BINARY or STRING"))
    cases.foreach { case (s, (column, found, allowed)) =>
      val e = missing(s)
      e.getCondition shouldBe "KINESIS_SINK_INVALID_COLUMN_TYPE"
      e.getSqlState shouldBe "42804"
      e.getMessage should include(s"Column '$column'")
      e.getMessage should include(s"type $found")
      e.getMessage should include(s"must be $allowed")
    }
    missing(keyAndData.add("stream", IntegerType), streamNameGiven = false).getMessage should include("'stream'")
  }

  test("column errors are IllegalArgumentExceptions, which PySpark shows as its own") {
    missing(schema("data" -> BinaryType)) shouldBe an[IllegalArgumentException]
  }

  // ---- each row, checked before it is queued ----

  private val basic = KinesisSinkColumns.resolve(keyAndData, streamNameGiven = true)

  test("a row becomes its stream and an entry sized data plus UTF-8 key bytes") {
    val (stream, entry) = basic.record(row("clé", Array[Byte](1, 2, 3)), Some("orders"))
    stream shouldBe "orders"
    entry.partitionKey shouldBe "clé"
    entry.data.toSeq shouldBe Seq[Byte](1, 2, 3)
    entry.size shouldBe 3 + 4
    entry.explicitHashKey shouldBe None
  }

  test("string data is sent as its UTF-8 bytes") {
    val columns = KinesisSinkColumns.resolve(schema("data" -> StringType, "partitionKey" -> StringType), true)
    val (_, entry) = columns.record(row("héllo", "k"), Some("s"))
    new String(entry.data, StandardCharsets.UTF_8) shouldBe "héllo"
  }

  test("an empty, null or over-long partition key is refused, saying what Kinesis takes") {
    Seq(row("", Array[Byte](1)), row(null, Array[Byte](1)), row("k" * 257, Array[Byte](1))).foreach { r =>
      val e = rowError(basic, r)
      e.getCondition shouldBe "KINESIS_SINK_INVALID_VALUE"
      e.getMessage should include("'partitionKey'")
      e.getMessage should include("1 to 256 characters")
    }
    basic.record(row("k" * 256, Array[Byte](1)), Some("s"))._2.partitionKey.length shouldBe 256
    basic.record(row("😀" * 256, Array[Byte](1)), Some("s")) // 256 characters, 512 UTF-16 units
  }

  test("null data is refused; empty data is a valid record") {
    rowError(basic, row("k", null)).getMessage should include("'data' is null")
    basic.record(row("k", Array.emptyByteArray), Some("s"))._2.size shouldBe 1
  }

  test("a record over 10 MiB, more than any stream takes, is refused with its size, the parts and the limit") {
    val mib = 1024 * 1024
    basic.record(row("k", new Array[Byte](10 * mib - 1)), Some("s"))._2.size shouldBe 10 * mib
    val e = rowError(basic, row("kk", new Array[Byte](10 * mib - 1)), Some("big"))
    e.getCondition shouldBe "KINESIS_SINK_RECORD_TOO_LARGE"
    e.getMessage should include("stream 'big'")
    e.getMessage should include(s"is ${10 * mib + 1} bytes")
    e.getMessage should include(s"'data' ${10 * mib - 1} bytes")
    e.getMessage should include("'partitionKey' 2 bytes")
    e.getMessage should include("limit of 10485760 bytes (10240 KiB)")
  }

  test("an explicit hash key must be a 128-bit decimal number; null means none") {
    val columns = KinesisSinkColumns.resolve(keyAndData.add("explicitHashKey", StringType), true)
    val max = (BigInt(2).pow(128) - 1).toString
    columns.record(row("k", Array[Byte](1), max), Some("s"))._2.explicitHashKey shouldBe Some(max)
    columns.record(row("k", Array[Byte](1), "0"), Some("s"))._2.explicitHashKey shouldBe Some("0")
    columns.record(row("k", Array[Byte](1), null), Some("s"))._2.explicitHashKey shouldBe None
    Seq((BigInt(2).pow(128)).toString, "-1", "12a", "", "1.5").foreach { bad =>
      rowError(columns, row("k", Array[Byte](1), bad)).getMessage should include("'explicitHashKey'")
    }
  }

  test("without streamName, each row's stream column names its stream") {
    val columns = KinesisSinkColumns.resolve(keyAndData.add("stream", StringType), streamNameGiven = false)
    columns.record(row("k", Array[Byte](1), "clicks"), None)._1 shouldBe "clicks"
    rowError(columns, row("k", Array[Byte](1), null), None).getMessage should include("'stream' is null")
    rowError(columns, row("k", Array[Byte](1), "no such/stream"), None).getMessage should include(
      "'no such/stream', which is not a stream name")
  }

  test("a row error never shows the partition key or the data") {
    val secret = "customer-4711-private"
    val e = rowError(basic, row(secret * 20, secret.getBytes(StandardCharsets.UTF_8)))
    e.getMessage should not include secret
  }
}
