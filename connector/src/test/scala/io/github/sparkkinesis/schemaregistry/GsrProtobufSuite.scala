// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.schemaregistry

import java.util.UUID

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

/** `from_gsr_protobuf` and `to_gsr_protobuf` from Scala and SQL against a stand-in registry: evolution, zlib, each failure mode. */
class GsrProtobufSuite extends AnyFunSuite with Matchers with RegistrySession {
  private val v1 =
    """syntax = "proto3";
      |package shop;
      |message Order { int64 id = 1; string item = 2; Status status = 3;
      |  enum Status { UNKNOWN = 0; OPEN = 1; } }
      |message Audit { string who = 1; }""".stripMargin
  // A compatible change: a field added, one renamed, a message added before Order in name order.
  private val v2 =
    """syntax = "proto3";
      |package shop;
      |message Audit { string who = 1; }
      |message Order { int64 id = 1; string product = 2; Status status = 3; repeated string tags = 4;
      |  enum Status { UNKNOWN = 0; OPEN = 1; } }
      |message Basket { repeated Order orders = 1; }""".stripMargin
  private val incompatible = "syntax = \"proto3\"; package shop; message Order { string id = 1; }"

  private def records(rows: Array[Byte]*): DataFrame = {
    val schema = StructType(Seq(StructField("data", BinaryType)))
    spark.createDataFrame(java.util.Arrays.asList(rows.map(r => Row(r)): _*), schema)
  }

  private def messages(e: Throwable): String =
    Iterator.iterate(e)(_.getCause).takeWhile(_ != null).map(_.getMessage).mkString(" ")

  /** Records of `message` in `definition` under `version`, written by to_gsr_protobuf from the SQL `struct`. */
  private def written(version: UUID, struct: String, compression: String = "none"): Array[Byte] = {
    val rows = spark.range(1).selectExpr(s"$struct AS o")
    rows.select(SchemaRegistryFunctions.to_gsr_protobuf(rows("o"),
        options("schemaVersionId" -> version.toString, "messageName" -> "Order", "compression" -> compression)))
      .collect().head.getAs[Array[Byte]](0)
  }

  test("to_gsr_protobuf writes the header, the message index AWS's serializer writes, then the message") {
    val schema = s"layout-${UUID.randomUUID()}"
    val id = registry.add(schema, v2, format = "PROTOBUF")
    val record = written(id, "struct(150L AS id, 'ab' AS product)")
    GsrWireFormat.read(record).versionId shouldBe id
    // shop.Audit = 0, shop.Basket = 1, shop.Order = 2; then id = 150, product = "ab".
    record.drop(GsrWireFormat.HeaderLength).toSeq shouldBe Array[Byte](2, 0x08, 0x96.toByte, 0x01, 0x12, 2, 'a',
      'b').toSeq
  }

  test("a producer moving to a compatible new version mid-stream: both versions read as the query's, from SQL too") {
    val schema = s"evolving-${UUID.randomUUID()}"
    val first = registry.add(schema, v1, format = "PROTOBUF")
    val second = registry.add(schema, v2, format = "PROTOBUF")
    val df = records(
      written(first, "struct(1L AS id, 'apple' AS item, 'OPEN' AS status)"),
      written(second, "struct(2L AS id, 'pear' AS product, array('ripe') AS tags)", compression = "zlib"),
      written(first, "struct(3L AS id)", compression = "zlib"))
    val asV1 = df.select(SchemaRegistryFunctions.from_gsr_protobuf(df("data"),
        options("schemaName" -> schema, "schemaVersion" -> "1", "messageName" -> "shop.Order")).as("o")).select("o.*")
    asV1.schema shouldBe StructType(Seq(StructField("id", LongType), StructField("item", StringType),
        StructField("status", StringType)))
    asV1.collect().toSeq shouldBe Seq(Row(1L, "apple", "OPEN"), Row(2L, "pear", null), Row(3L, null, null))
    df.createOrReplaceTempView("gsr_protobuf_records")
    val opts = options("schemaName" -> schema, "messageName" -> "Order").map { case (k, v) => s"'$k', '$v'" }
      .mkString(", ")
    spark.sql(s"SELECT o.* FROM (SELECT from_gsr_protobuf(data, map($opts)) AS o FROM gsr_protobuf_records)")
      .collect().toSeq shouldBe
      Seq(Row(1L, "apple", "OPEN", Seq()), Row(2L, "pear", null, Seq("ripe")), Row(3L, null, null, Seq()))
  }

  test("unknown, deleted, incompatible, other-message and broken records: FAILFAST names the version, " +
    "PERMISSIVE gives null and why") {
    val schema = s"failing-${UUID.randomUUID()}"
    val good = registry.add(schema, v2, format = "PROTOBUF")
    val other = registry.add(s"other-${UUID.randomUUID()}", incompatible, format = "PROTOBUF")
    val deleted = registry.add(s"gone-${UUID.randomUUID()}", v1, status = "DELETING", format = "PROTOBUF")
    val json = registry.add(s"json-${UUID.randomUUID()}", "{}", format = "JSON")
    val unknown = UUID.randomUUID()
    def raw(version: UUID, hex: String) =
      GsrWireFormat.write(version, hex.grouped(2).map(Integer.parseInt(_, 16).toByte).toArray, compress = false)
    val bad = Seq(
      unknown -> raw(unknown, "020801"),
      other -> raw(other, "000a0131"),
      deleted -> raw(deleted, "010801"),
      json -> raw(json, "010801"),
      good -> raw(good, "000a0178"), // message 0 is shop.Audit
      good -> raw(good, "02120561"), // a field cut short
      good -> raw(good, "09"), // a message index past the last message
      good -> raw(good, ""))
    for ((version, bytes) <- bad) {
      val df = records(bytes)
      val failure = intercept[Exception] {
        df.select(SchemaRegistryFunctions.from_gsr_protobuf(df("data"),
            options("schemaName" -> schema, "messageName" -> "Order"))).collect()
      }
      messages(failure) should include(version.toString)
    }
    val df = records(bad.map(_._2) :+ Array[Byte](1, 2) :+ written(good, "struct(9L AS id)"): _*)
    val rows = df.select(SchemaRegistryFunctions.from_gsr_protobuf(df("data"),
        options("schemaName" -> schema, "messageName" -> "Order", "mode" -> "PERMISSIVE")).as("r"))
      .select("r.value", "r.error").collect()
    rows.take(9).map(_.isNullAt(0)) shouldBe Array.fill(9)(true)
    rows(0).getString(1) should (include(unknown.toString) and include("not in the registry"))
    rows(1).getString(1) should (include(other.toString) and
      include("shop.Order.id (number 1) is int64 in the query's schema, string in the record's"))
    rows(2).getString(1) should (include(deleted.toString) and include("DELETING"))
    rows(3).getString(1) should (include(json.toString) and include("is JSON, not PROTOBUF"))
    rows(4).getString(1) should include("is a shop.Audit message; the query reads shop.Order")
    rows(5).getString(1) should (include("not a valid Protobuf record") and include("runs past the end"))
    rows(6).getString(1) should include("message index is 9; schema version")
    rows(7).getString(1) should include("ends before its message index")
    rows(8).getString(1) should include("not a Glue Schema Registry record")
    rows(9) shouldBe Row(Row(9L, null, null, Seq()), null)
  }

  test("options and columns that do not fit are named when the query is defined") {
    val schema = s"named-${UUID.randomUUID()}"
    val id = registry.add(schema, v1, format = "PROTOBUF")
    val df = records()
    (the[IllegalArgumentException] thrownBy df.select(SchemaRegistryFunctions.from_gsr_protobuf(df("data"),
        options("schemaName" -> schema, "messageName" -> "Nope")))).getMessage should
      (include("'messageName'") and include("shop.Order, shop.Audit"))
    (the[IllegalArgumentException] thrownBy df.select(SchemaRegistryFunctions.from_gsr_protobuf(df("data"),
        options("schemaDefinition" -> "syntax = \"proto3\";\nmessage A { group G = 1 {} }")))).getMessage should
      (include("line 2") and include("group"))
    val avro = registry.add(s"avro-${UUID.randomUUID()}", """{"type":"string"}""")
    (the[Exception] thrownBy df.select(SchemaRegistryFunctions.from_gsr_protobuf(df("data"),
        options("schemaVersionId" -> avro.toString)))).getMessage should include("is AVRO; from_gsr_protobuf reads")
    val unfit = spark.range(1).selectExpr("struct(CAST(id AS STRING) AS id, 1 AS colour) AS o")
    (the[Exception] thrownBy unfit.select(SchemaRegistryFunctions.to_gsr_protobuf(unfit("o"),
        options("schemaVersionId" -> id.toString)))).getMessage should include(
      "the column's /id is string; the message field is int64 (bigint)")
  }
}
