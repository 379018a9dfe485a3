// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.schemaregistry

import java.io.ByteArrayOutputStream
import java.util.UUID

import org.apache.avro.Schema
import org.apache.avro.generic.{GenericData, GenericDatumWriter, GenericRecord}
import org.apache.avro.io.EncoderFactory
import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.types.{BinaryType, StructField, StructType}
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

/** `from_gsr_avro` from Scala and SQL against a stand-in registry: evolution, zlib, each failure mode. */
class GsrAvroDecodeSuite extends AnyFunSuite with Matchers with RegistrySession {
  private val v1 =
    """{"type":"record","name":"Order","fields":[{"name":"id","type":"long"},{"name":"item","type":"string"}]}"""
  private val v2 = """{"type":"record","name":"Order","fields":[{"name":"id","type":"long"},""" +
    """{"name":"item","type":"string"},{"name":"quantity","type":"int","default":1}]}"""
  private val incompatible =
    """{"type":"record","name":"Order","fields":[{"name":"id","type":"string"},{"name":"item","type":"string"}]}"""

  private def avro(definition: String, fields: (String, Any)*): Array[Byte] = {
    val schema = new Schema.Parser().parse(definition)
    val record: GenericRecord = new GenericData.Record(schema)
    fields.foreach { case (k, v) => record.put(k, v) }
    val out = new ByteArrayOutputStream()
    val encoder = EncoderFactory.get().binaryEncoder(out, null)
    new GenericDatumWriter[GenericRecord](schema).write(record, encoder)
    encoder.flush()
    out.toByteArray
  }

  private def records(rows: Array[Byte]*): DataFrame = {
    val schema = StructType(Seq(StructField("data", BinaryType)))
    spark.createDataFrame(java.util.Arrays.asList(rows.map(r => Row(r)): _*), schema)
  }

  test("records of an older and a newer version read as the query's version, compressed or not") {
    val schema = s"evolving-${UUID.randomUUID()}"
    val first = registry.add(schema, v1)
    val second = registry.add(schema, v2)
    val df = records(
      GsrWireFormat.write(first, avro(v1, "id" -> 1L, "item" -> "apple"), compress = false),
      GsrWireFormat.write(second, avro(v2, "id" -> 2L, "item" -> "pear", "quantity" -> 5), compress = true),
      GsrWireFormat.write(first, avro(v1, "id" -> 3L, "item" -> "plum"), compress = true))

    val asV2 = df.select(SchemaRegistryFunctions.from_gsr_avro(df("data"),
        options("schemaName" -> schema, "registryName" -> "test-registry")).as("order")).select("order.*")
    asV2.schema.fieldNames shouldBe Array("id", "item", "quantity")
    asV2.collect().toSeq shouldBe Seq(Row(1L, "apple", 1), Row(2L, "pear", 5), Row(3L, "plum", 1))

    val asV1 = df.select(SchemaRegistryFunctions.from_gsr_avro(df("data"),
        options("schemaName" -> schema, "schemaVersion" -> "1")).as("order")).select("order.*")
    asV1.collect().toSeq shouldBe Seq(Row(1L, "apple"), Row(2L, "pear"), Row(3L, "plum"))
  }

  test("from SQL, with the options as a map") {
    val schema = s"sql-${UUID.randomUUID()}"
    val id = registry.add(schema, v1)
    records(GsrWireFormat.write(id, avro(v1, "id" -> 7L, "item" -> "fig"), compress = false))
      .createOrReplaceTempView("gsr_records")
    val opts = options("schemaName" -> schema).map { case (k, v) => s"'$k', '$v'" }.mkString(", ")
    spark.sql(s"SELECT from_gsr_avro(data, map($opts)).item AS item FROM gsr_records").collect() shouldBe
      Array(Row("fig"))
  }

  test(
    "unknown, deleted, incompatible and malformed records: FAILFAST names the version, PERMISSIVE gives null and why") {
    val schema = s"failing-${UUID.randomUUID()}"
    val good = registry.add(schema, v1)
    val other = registry.add(s"other-${UUID.randomUUID()}", incompatible)
    val deleted = registry.add(s"gone-${UUID.randomUUID()}", v1, status = "DELETING")
    val unknown = UUID.randomUUID()
    val bad = Seq(
      unknown -> GsrWireFormat.write(unknown, avro(v1, "id" -> 1L, "item" -> "x"), compress = false),
      other -> GsrWireFormat.write(other, avro(incompatible, "id" -> "one", "item" -> "x"), compress = false),
      deleted -> GsrWireFormat.write(deleted, avro(v1, "id" -> 1L, "item" -> "x"), compress = false))
    for ((version, record) <- bad) {
      val df = records(record)
      val failure = intercept[Exception] {
        df.select(SchemaRegistryFunctions.from_gsr_avro(df("data"), options("schemaName" -> schema))).collect()
      }
      Iterator.iterate[Throwable](failure)(_.getCause).takeWhile(_ != null).map(_.getMessage).mkString(" ") should
        include(version.toString)
    }
    val goodRecord = GsrWireFormat.write(good, avro(v1, "id" -> 9L, "item" -> "ok"), compress = false)
    val df = records((bad.map(_._2) :+ "not a GSR record".getBytes("UTF-8")) :+ goodRecord: _*)
    val rows = df.select(SchemaRegistryFunctions.from_gsr_avro(df("data"),
        options("schemaName" -> schema, "mode" -> "permissive")).as("r")).select("r.value", "r.error").collect()
    rows.take(4).map(_.isNullAt(0)) shouldBe Array.fill(4)(true)
    rows(0).getString(1) should (include(unknown.toString) and include("not in the registry"))
    rows(1).getString(1) should (include(other.toString) and include("cannot be read as"))
    rows(2).getString(1) should (include(deleted.toString) and include("DELETING"))
    rows(3).getString(1) should include("not a Glue Schema Registry record")
    rows(4) shouldBe Row(Row(9L, "ok"), null)
  }

  test("each writer version is asked of the registry once per JVM, however many records and tasks") {
    val schema = s"cached-${UUID.randomUUID()}"
    val id = registry.add(schema, v1)
    val df = records((1 to 200).map(i => GsrWireFormat.write(id, avro(v1, "id" -> i.toLong, "item" -> "x"), false)): _*)
      .repartition(4)
    val before = registry.calls.get()
    df.select(SchemaRegistryFunctions.from_gsr_avro(df("data"), options("schemaName" -> schema)).as("o"))
      .selectExpr("sum(o.id)").collect() shouldBe Array(Row(20100L))
    registry.calls.get() - before shouldBe 2 // the reader's latest version, then the writer's by id
  }

  test("to_gsr_avro writes records of the named version that from_gsr_avro and the header reader read back") {
    val schema = s"written-${UUID.randomUUID()}"
    val id = registry.add(schema, v2)
    val rows = spark.range(3).selectExpr(
      "struct(id, concat('item-', CAST(id AS STRING)) AS item, CAST(id * 2 AS INT) AS quantity) AS o")
    for (compression <- Seq("none", "zlib")) {
      val written = rows.select(SchemaRegistryFunctions.to_gsr_avro(rows("o"),
          options("schemaName" -> schema, "compression" -> compression)).as("data"))
      val records = written.collect().map(_.getAs[Array[Byte]](0))
      records.map(r => GsrWireFormat.read(r).versionId).distinct shouldBe Array(id)
      records.map(_(1)).distinct shouldBe Array(if (compression == "zlib") GsrWireFormat.ZlibCompression else 0.toByte)
      written.select(SchemaRegistryFunctions.from_gsr_avro(written("data"), options("schemaName" -> schema)).as("o"))
        .select("o.*").collect().toSeq shouldBe Seq(Row(0L, "item-0", 0), Row(1L, "item-1", 2), Row(2L, "item-2", 4))
    }
    val missing = spark.range(1).selectExpr("struct(id) AS o")
    (the[Exception] thrownBy missing.select(SchemaRegistryFunctions.to_gsr_avro(missing("o"),
        options("schemaName" -> schema))).collect()).getMessage should include("has no field 'item'")
  }

  test("a wrong option, a missing schema or an unreachable registry fails the query's definition, naming it") {
    val df = records()
    the[IllegalArgumentException] thrownBy df.select(SchemaRegistryFunctions.from_gsr_avro(df("data"),
        options("schemaName" -> "x", "mode" -> "lenient"))) should have message
      "Invalid value 'lenient' for option 'mode'; allowed: FAILFAST, PERMISSIVE"
    the[IllegalArgumentException] thrownBy df.select(SchemaRegistryFunctions.from_gsr_avro(df("data"),
        options("schemaVersion" -> "0", "schemaName" -> "x"))) should have message
      "Invalid value '0' for option 'schemaVersion'; allowed: a version number (1, 2, ...) or 'latest'"
    (the[Exception] thrownBy df.select(SchemaRegistryFunctions.from_gsr_avro(df("data"),
        options("schemaName" -> "no-such-schema")))).getMessage should
      (include("EntityNotFoundException") and include(registry.endpoint))
    val closed = new StandInRegistry
    closed.close()
    (the[Exception] thrownBy df.select(SchemaRegistryFunctions.from_gsr_avro(df("data"),
        options("schemaName" -> "x", "endpoint" -> closed.endpoint)))).getMessage should
      (include("could not be reached") and include(closed.endpoint))
  }

  test("keys written in SQL are masked in the plans Spark prints (explain, the UI, the event log)") {
    val schema = s"orders-${UUID.randomUUID()}"
    registry.add(schema, v1)
    // Rows Spark cannot fold into the plan (a local relation's would be decoded while planning).
    spark.range(1).selectExpr("CAST(CAST(id AS STRING) AS BINARY) AS data").createOrReplaceTempView("gsr_keyed_records")
    val keys = Map("awsAccessKey" -> "AKIAWRITTENINSQL", "awsSecretKey" -> "Wr1ttenInSqlSecret")
    val opts = (options("schemaName" -> schema) ++ keys).map { case (k, v) => s"'$k', '$v'" }.mkString(", ")
    val explained = spark.sql(s"EXPLAIN EXTENDED SELECT from_gsr_avro(data, map($opts)) AS o FROM gsr_keyed_records")
      .collect().head.getString(0)
    explained should (include("== Parsed Logical Plan ==") and include("from_gsr_avro"))
    keys.values.foreach(key => explained should not include key)
  }
}
