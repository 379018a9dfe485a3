// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.schemaregistry

import java.nio.charset.StandardCharsets.UTF_8
import java.sql.Date
import java.util.UUID

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

/** `from_gsr_json` and `to_gsr_json` from Scala and SQL against a stand-in registry: types, evolution, zlib, each failure mode. */
class GsrJsonSuite extends AnyFunSuite with Matchers with RegistrySession {
  private val v1 = """{"$schema":"http://json-schema.org/draft-07/schema#","type":"object",""" +
    """"properties":{"id":{"type":"integer"},"item":{"type":"string","maxLength":20}},"required":["id"]}"""
  private val v2 = """{"type":"object","properties":{"id":{"type":"integer"},"item":{"type":"string"},""" +
    """"quantity":{"type":["number","null"]}},"required":["id"]}"""
  private val incompatible = """{"type":"object","properties":{"id":{"type":"string"}}}"""

  private def record(version: UUID, json: String, compress: Boolean = false): Array[Byte] =
    GsrWireFormat.write(version, json.getBytes(UTF_8), compress)

  private def records(rows: Array[Byte]*): DataFrame = {
    val schema = StructType(Seq(StructField("data", BinaryType)))
    spark.createDataFrame(java.util.Arrays.asList(rows.map(r => Row(r)): _*), schema)
  }

  private def messages(e: Throwable): String =
    Iterator.iterate(e)(_.getCause).takeWhile(_ != null).map(_.getMessage).mkString(" ")

  test("the JSON Schema's properties become the columns, their types from type and format") {
    val schema = """{"type":"object","required":["id"],"properties":{"id":{"type":"integer"},""" +
      """"price":{"type":"number"},"paid":{"type":"boolean"},"day":{"type":"string","format":"date"},""" +
      """"at":{"type":"string","format":"date-time"},"tags":{"type":"array","items":{"type":"string"}},""" +
      """"address":{"type":"object","properties":{"city":{"type":"string"}}},""" +
      """"extra":{"type":"object","additionalProperties":{"type":"integer"}},"note":{"type":["string","null"]},""" +
      """"raw":{}}}"""
    JsonSchemaTypes.rootType(schema) shouldBe StructType(Seq(
        StructField("id", LongType, nullable = false), StructField("price", DoubleType),
        StructField("paid", BooleanType), StructField("day", DateType), StructField("at", TimestampType),
        StructField("tags", ArrayType(StringType, containsNull = false)),
        StructField("address", StructType(Seq(StructField("city", StringType)))),
        StructField("extra", MapType(StringType, LongType, valueContainsNull = false)),
        StructField("note", StringType), StructField("raw", StringType)))
    val id = registry.add(s"typed-${UUID.randomUUID()}", schema, format = "JSON")
    val df = records(record(id,
        """{"id":1,"price":2.5,"paid":true,"day":"2024-02-29","at":"2024-02-29T10:00:00Z",""" +
          """"tags":["a","b"],"address":{"city":"Oslo"},"extra":{"k":3},"note":null,"raw":{"x":[1]},"unknown":1}"""))
    val row = df.select(SchemaRegistryFunctions.from_gsr_json(df("data"), options("schemaVersionId" -> id.toString))
        .as("o")).select("o.*").collect().head
    row.getLong(0) shouldBe 1L
    row.getDouble(1) shouldBe 2.5
    row.getBoolean(2) shouldBe true
    row.getDate(3) shouldBe Date.valueOf("2024-02-29")
    row.getTimestamp(4).toInstant.toString shouldBe "2024-02-29T10:00:00Z"
    row.getSeq[String](5) shouldBe Seq("a", "b")
    row.getStruct(6) shouldBe Row("Oslo")
    row.getMap[String, Long](7) shouldBe Map("k" -> 3L)
    row.isNullAt(8) shouldBe true
    row.getString(9) shouldBe """{"x":[1]}"""
  }

  test("keywords outside the supported subset fail the query's definition, naming the keyword and where") {
    val df = records()
    for ((keyword, schema) <- Seq(
        "$ref" -> """{"type":"object","properties":{"a":{"$ref":"#/definitions/A"}}}""",
        "oneOf" -> """{"type":"object","properties":{"a":{"oneOf":[{"type":"string"},{"type":"integer"}]}}}""")) {
      (the[Exception] thrownBy df.select(SchemaRegistryFunctions.from_gsr_json(df("data"),
          options("schemaDefinition" -> schema)))).getMessage should
        (include(s"keyword '$keyword'") and include("#/properties/a"))
    }
    (the[Exception] thrownBy df.select(SchemaRegistryFunctions.from_gsr_json(df("data"),
        options("schemaDefinition" -> """{"type":"array","items":{"type":"string"}}""")))).getMessage should
      include("records must be objects")
    val avro = registry.add(s"avro-${UUID.randomUUID()}", """{"type":"string"}""")
    (the[Exception] thrownBy df.select(SchemaRegistryFunctions.from_gsr_json(df("data"),
        options("schemaVersionId" -> avro.toString)))).getMessage should include("is AVRO; from_gsr_json reads")
  }

  test("records of an older and a newer version read as the query's version, compressed or not, from SQL too") {
    val schema = s"evolving-${UUID.randomUUID()}"
    val first = registry.add(schema, v1, format = "JSON")
    val second = registry.add(schema, v2, format = "JSON")
    val df = records(
      record(first, """{"id":1,"item":"apple"}"""),
      record(second, """{"id":2,"item":"pear","quantity":5}""", compress = true),
      record(first, """{"id":3}""", compress = true))
    val asV2 = df.select(SchemaRegistryFunctions.from_gsr_json(df("data"), options("schemaName" -> schema)).as("o"))
      .select("o.*")
    asV2.collect().toSeq shouldBe Seq(Row(1L, "apple", null), Row(2L, "pear", 5.0), Row(3L, null, null))
    df.createOrReplaceTempView("gsr_json_records")
    val opts = options("schemaName" -> schema, "schemaVersion" -> "1").map { case (k, v) => s"'$k', '$v'" }
      .mkString(", ")
    spark.sql(
      s"SELECT o.* FROM (SELECT from_gsr_json(data, map($opts)) AS o FROM gsr_json_records)").collect().toSeq shouldBe
      Seq(Row(1L, "apple"), Row(2L, "pear"), Row(3L, null))
  }

  test("unknown, deleted, incompatible, invalid and required-less records: FAILFAST names the version, " +
    "PERMISSIVE gives null and why") {
    val schema = s"failing-${UUID.randomUUID()}"
    val good = registry.add(schema, v1, format = "JSON")
    val other = registry.add(s"other-${UUID.randomUUID()}", incompatible, format = "JSON")
    val deleted = registry.add(s"gone-${UUID.randomUUID()}", v1, status = "DELETING", format = "JSON")
    val unknown = UUID.randomUUID()
    val bad = Seq(
      unknown -> record(unknown, """{"id":1}"""),
      other -> record(other, """{"id":"one"}"""),
      deleted -> record(deleted, """{"id":1}"""),
      good -> record(good, """{"id":"not a number"}"""),
      good -> record(good, """{"item":"no id"}"""))
    for ((version, bytes) <- bad) {
      val df = records(bytes)
      val failure = intercept[Exception] {
        df.select(SchemaRegistryFunctions.from_gsr_json(df("data"), options("schemaName" -> schema))).collect()
      }
      messages(failure) should include(version.toString)
    }
    val df = records((bad.map(_._2) :+ "{}".getBytes(UTF_8)) :+ record(good, """{"id":9,"item":"ok"}"""): _*)
    val rows = df.select(SchemaRegistryFunctions.from_gsr_json(df("data"),
        options("schemaName" -> schema, "mode" -> "PERMISSIVE")).as("r")).select("r.value", "r.error").collect()
    rows.take(6).map(_.isNullAt(0)) shouldBe Array.fill(6)(true)
    rows(0).getString(1) should (include(unknown.toString) and include("not in the registry"))
    rows(1).getString(1) should (include(other.toString) and include("/id is string there, bigint here"))
    rows(2).getString(1) should (include(deleted.toString) and include("DELETING"))
    rows(3).getString(1) should (include(good.toString) and include("not JSON of the query's schema"))
    rows(4).getString(1) should (include(good.toString) and include("required property /id"))
    rows(5).getString(1) should include("not a Glue Schema Registry record")
    rows(6) shouldBe Row(Row(9L, "ok"), null)
  }

  test("to_gsr_json writes records of the named version that from_gsr_json reads back, and checks the column") {
    val schema = s"written-${UUID.randomUUID()}"
    val id = registry.add(schema, v2, format = "JSON")
    val rows = spark.range(3).selectExpr(
      "struct(id, concat('item-', CAST(id AS STRING)) AS item, CAST(id * 2 AS INT) AS quantity) AS o")
    for (compression <- Seq("none", "zlib")) {
      val written = rows.select(SchemaRegistryFunctions.to_gsr_json(rows("o"),
          options("schemaName" -> schema, "compression" -> compression)).as("data"))
      val bytes = written.collect().map(_.getAs[Array[Byte]](0))
      bytes.map(r => GsrWireFormat.read(r).versionId).distinct shouldBe Array(id)
      if (compression == "none") new String(bytes(1), 18, bytes(1).length - 18, UTF_8) shouldBe
        """{"id":1,"item":"item-1","quantity":2}"""
      written.select(SchemaRegistryFunctions.from_gsr_json(written("data"), options("schemaName" -> schema)).as("o"))
        .select("o.*").collect().toSeq shouldBe
        Seq(Row(0L, "item-0", 0.0), Row(1L, "item-1", 2.0), Row(2L, "item-2", 4.0))
    }
    val unfit = spark.range(1).selectExpr("struct(CAST(id AS STRING) AS id, 1 AS colour) AS o")
    (the[Exception] thrownBy unfit.select(SchemaRegistryFunctions.to_gsr_json(unfit("o"),
        options("schemaName" -> schema)))).getMessage should
      (include("no property /colour") and include("/id is string in the column, integer in the schema"))
    val nullId = spark.range(1).selectExpr("struct(CAST(NULL AS BIGINT) AS id) AS o")
    messages(the[Exception] thrownBy nullId.select(SchemaRegistryFunctions.to_gsr_json(nullId("o"),
        options("schemaName" -> schema))).collect()) should include("no value for /id")
  }
}
