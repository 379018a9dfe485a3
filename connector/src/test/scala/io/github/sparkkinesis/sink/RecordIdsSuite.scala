// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import java.nio.charset.StandardCharsets.UTF_8

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericRowWithSchema
import org.apache.spark.sql.types.{BinaryType, StringType, StructType}
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.{FakeClock, FakeKinesisPutApi}
import io.github.sparkkinesis.FakeKinesisPutApi.text
import io.github.sparkkinesis.errors.KinesisConnectorException
import io.github.sparkkinesis.kpl.KplEnvelope
import io.github.sparkkinesis.options.KinesisSinkOptions

/**
 * `recordIds`: every row reaches Kinesis tagged with `<query>/<batch>/<partition>/<row>`, read
 * back here as this connector reads it (aggregates split, ids from their tags); a task run again
 * on the same rows tags them alike, so a reader can drop the second copies.
 */
class RecordIdsSuite extends AnyFunSuite with Matchers {

  private val base = Map("streamName" -> "s", "region" -> "us-east-1", "endpoint" -> "http://localhost:4567",
    "recordIds" -> "true", "maxInFlightPuts" -> "2")
  private val written = new StructType().add("partitionKey", StringType).add("data", BinaryType)
  private val query = "7c1a4a2e-0000-4000-8000-000000000001"

  private def options(extra: (String, String)*): KinesisSinkOptions = KinesisSinkOptions.parse(base ++ extra)

  /** One DSv2 task of batch `batch`, partition `partition`, writing `rows` (key, data). */
  private def task(api: FakeKinesisPutApi, o: KinesisSinkOptions, batch: Long, partition: Int,
      rows: Seq[(String, String)]): Unit = {
    val ids = if (o.put.recordIds) Some(new TaskRecordIds(query, batch, partition)) else None
    val w = new KinesisDataWriter(KinesisSinkColumns.resolve(written, true), o, api, new FakeClock(), ids)
    try {
      rows.foreach { case (k, d) => w.write(InternalRow(UTF8String.fromString(k), d.getBytes(UTF_8))) }
      w.commit()
    } finally w.close()
  }

  private def rows(n: Int): Seq[(String, String)] = (0 until n).map(i => s"key${i % 7}" -> s"row$i")

  /** (data, id) of every user record a reader gets. */
  private def read(api: FakeKinesisPutApi): Seq[(String, Option[String])] =
    api.userRecords("s").map { case (_, r) => text(r.data) -> r.recordId }

  for (aggregation <- Seq("none", "kpl")) {
    test(s"aggregation $aggregation: each row carries its query, batch, partition and place in the task") {
      val api = new FakeKinesisPutApi().shards("s", 3)
      task(api, options("aggregation" -> aggregation), batch = 4, partition = 2, rows(40))
      read(api).sortBy(_._1) shouldBe (0 until 40).map(i => s"row$i" -> Some(s"$query/4/2/$i")).sortBy(_._1)
      // Every Kinesis record is a KPL aggregate: without aggregation, one of each row alone.
      api.records("s").forall(e => KplEnvelope.hasMagic(e.data)) shouldBe true
      if (aggregation == "none") api.records("s").size shouldBe 40 else api.records("s").size should be < 40
    }

    test(s"aggregation $aggregation: a task run again on the same rows gives every row the same id") {
      val api = new FakeKinesisPutApi().shards("s", 2)
      val o = options("aggregation" -> aggregation)
      task(api, o, batch = 0, partition = 1, rows(25))
      task(api, o, batch = 0, partition = 1, rows(25))
      val copies = read(api).groupBy(_._2).map { case (id, rs) => id -> rs.map(_._1).distinct }
      copies.size shouldBe 25
      copies.values.foreach(_.size shouldBe 1) // one row per id
      read(api).size shouldBe 50
      read(api).distinct.size shouldBe 25
    }
  }

  test("another batch or partition gives other ids") {
    val api = new FakeKinesisPutApi().shards("s", 1)
    val o = options()
    task(api, o, batch = 0, partition = 0, rows(3))
    task(api, o, batch = 1, partition = 0, rows(3))
    task(api, o, batch = 0, partition = 1, rows(3))
    read(api).flatMap(_._2).distinct.size shouldBe 9
  }

  test("without recordIds rows go as they are, with no id") {
    val api = new FakeKinesisPutApi().shards("s", 1)
    task(api, options("recordIds" -> "false"), batch = 0, partition = 0, rows(5))
    api.texts("s").sorted shouldBe (0 until 5).map(i => s"row$i").sorted
    read(api).flatMap(_._2) shouldBe empty
  }

  test("a row too large once it carries its id is refused, counting the bytes it would take") {
    val api = new FakeKinesisPutApi().shards("s", 1)
    val almost = "x" * (1024 * 1024 - 10)
    val e = intercept[KinesisConnectorException](task(api, options(), 0, 0, Seq("k" -> almost)))
    e.getCondition shouldBe "KINESIS_SINK_RECORD_TOO_LARGE"
    api.records("s") shouldBe empty
  }

  test("the foreach writer tags rows with the streaming query's id and the batch and partition it opened") {
    val api = new FakeKinesisPutApi().shards("s", 1)
    val schema = new StructType().add("partitionKey", StringType).add("data", BinaryType)
    val writer = new KinesisForeachWriter(KinesisForeachWriter.parse(base), _ => api, () => Some(query))
    writer.open(3, 9) shouldBe true
    Seq("a", "b").foreach(d => writer.process(new GenericRowWithSchema(Array[Any]("k", d.getBytes(UTF_8)), schema)))
    writer.close(null)
    read(api) shouldBe Seq("a" -> Some(s"$query/9/3/0"), "b" -> Some(s"$query/9/3/1"))
  }

  test("the foreach writer outside a streaming query's task is refused, naming recordIds") {
    val writer = new KinesisForeachWriter(KinesisForeachWriter.parse(base), _ => new FakeKinesisPutApi, () => None)
    val e = intercept[KinesisConnectorException](writer.open(0, 0))
    e.getMessage should include("recordIds")
    val plain = new KinesisForeachWriter(KinesisForeachWriter.parse(base + ("recordIds" -> "false")),
      _ => new FakeKinesisPutApi, () => None)
    plain.open(0, 0) shouldBe true
    plain.close(null)
  }
}
