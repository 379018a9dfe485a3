// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, ObjectInputStream, ObjectOutputStream}
import java.nio.charset.StandardCharsets.UTF_8

import scala.concurrent.duration._

import org.apache.spark.sql.Row
import org.apache.spark.sql.catalyst.expressions.GenericRowWithSchema
import org.apache.spark.sql.types.{BinaryType, StringType, StructType}
import org.scalatest.concurrent.Eventually
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.FakeKinesisPutApi
import io.github.sparkkinesis.errors.{KinesisConnectorException, KinesisOptionException}
import io.github.sparkkinesis.options.KinesisSinkOptions

class KinesisForeachWriterSuite extends AnyFunSuite with Matchers with Eventually {
  implicit override val patienceConfig: PatienceConfig = PatienceConfig(timeout = 10.seconds, interval = 10.millis)

  private val base = Map("streamName" -> "out", "region" -> "us-east-1", "endpoint" -> "http://localhost:4567")
  private val schema = new StructType().add("partitionKey", StringType).add("data", BinaryType)
    .add("sequenceNumber", StringType) // a source column the writer ignores

  private def rowWriter(api: FakeKinesisPutApi, options: Map[String, String] = base) =
    new KinesisForeachWriter(KinesisForeachWriter.parse(options), _ => api)

  private def pairWriter(api: FakeKinesisPutApi, options: Map[String, String] = base) =
    new KinesisPairForeachWriter(KinesisForeachWriter.parse(options), _ => api)

  private def row(key: String, data: String, rowSchema: StructType = schema): Row =
    new GenericRowWithSchema(Array[Any](key, Option(data).map(_.getBytes(UTF_8)).orNull, "49"), rowSchema)

  /** Runs one task as Spark's foreach sink does: open, every value, then close with the error, if any. */
  private def task[T](writer: KinesisForeachSink[T], values: Seq[T]): Unit = {
    writer.open(0, 1) shouldBe true
    try values.foreach(writer.process)
    catch {
      case e: Throwable =>
        writer.close(e)
        throw e
    }
    writer.close(null)
  }

  test("close returns once every row is stored, each partition key's rows in the order processed") {
    val api = new FakeKinesisPutApi().shards("out", 2)
    val rows = (0 until 300).map(i => row(s"k${i % 7}", s"${i % 7}:$i"))
    task(rowWriter(api, base + ("maxInFlightPuts" -> "3")), rows)

    val stored = api.texts("out")
    stored.sorted shouldBe rows.map(r => new String(r.getAs[Array[Byte]]("data"), UTF_8)).sorted
    stored.groupBy(_.takeWhile(_ != ':')).values.foreach { ofKey =>
      ofKey.map(_.dropWhile(_ != ':').tail.toInt) shouldBe sorted
    }
  }

  test("a record leaves within maxPutLinger, long before the task closes") {
    val api = new FakeKinesisPutApi
    val writer = rowWriter(api)
    writer.open(0, 1)
    try {
      writer.process(row("k", "alone"))
      eventually(api.texts("out") shouldBe Seq("alone"))
    } finally writer.close(null)
  }

  test("maxPutLinger defaults to 5 ms in the foreach writers, 50 ms in the sink; a set value is kept") {
    KinesisForeachWriter.parse(base).put.maxPutLingerMs shouldBe 5
    KinesisForeachWriter.parse(base + ("MAXPUTLINGER" -> "20ms")).put.maxPutLingerMs shouldBe 20
    KinesisSinkOptions.parse(base).put.maxPutLingerMs shouldBe 50
  }

  test("string data and the stream column are read as the sink reads them") {
    val api = new FakeKinesisPutApi
    val routed = new StructType().add("stream", StringType).add("partitionKey", StringType).add("data", StringType)
    val rows = Seq(Row("a", "k1", "one"), Row("b", "k2", "two"), Row("a", "k3", "three"))
      .map(r => new GenericRowWithSchema(r.toSeq.toArray, routed): Row)
    task(rowWriter(api, base - "streamName"), rows)
    api.texts("a") should contain theSameElementsAs Seq("one", "three")
    api.texts("b") shouldBe Seq("two")
  }

  test("pairs go to streamName; a pair writer without one is refused when it is made") {
    val api = new FakeKinesisPutApi
    task(pairWriter(api), Seq("k1" -> "x".getBytes(UTF_8), "k2" -> "y".getBytes(UTF_8)))
    api.records("out").map(e => e.partitionKey -> new String(e.data, UTF_8)) should
      contain theSameElementsAs Seq("k1" -> "x", "k2" -> "y")

    val e = intercept[KinesisOptionException](KinesisForeachWriter.forPairs(base - "streamName"))
    e.getCondition shouldBe "KINESIS_MISSING_OPTION"
    e.getMessage should include("streamName")
  }

  test("bad options are refused when the writer is made, naming the option") {
    val unknown = intercept[KinesisOptionException](KinesisForeachWriter(base + ("maxPutLingr" -> "5ms")))
    unknown.getCondition shouldBe "KINESIS_UNKNOWN_OPTION"
    unknown.getMessage should include("maxPutLinger")
    val bad = intercept[KinesisOptionException](KinesisForeachWriter(base + ("maxPutLinger" -> "0ms")))
    bad.getCondition shouldBe "KINESIS_INVALID_OPTION_VALUE"
    bad.getMessage should include("maxPutLinger")
  }

  test("checkColumns fails as format(\"kinesis\") does for a DataFrame the sink cannot write") {
    val writer = KinesisForeachWriter(base)
    writer.checkColumns(schema) shouldBe writer
    val missing = intercept[KinesisOptionException](writer.checkColumns(new StructType().add("data", BinaryType)))
    missing.getCondition shouldBe "KINESIS_SINK_MISSING_COLUMN"
    missing.getMessage should include("partitionKey")
    val wrongType = new StructType().add("partitionKey", StringType).add("data", "int")
    intercept[KinesisOptionException](writer.checkColumns(wrongType)).getCondition shouldBe
      "KINESIS_SINK_INVALID_COLUMN_TYPE"
  }

  test("a bad row fails process with the sink's error; close with that error sends nothing queued") {
    val api = new FakeKinesisPutApi
    val writer = rowWriter(api, base + ("maxPutLinger" -> "10m"))
    val e = intercept[KinesisConnectorException](task(writer, Seq(row("k", "queued"), row("k", null))))
    e.getCondition shouldBe "KINESIS_SINK_INVALID_VALUE"
    e.getMessage should include("column 'data' is null")
    api.calls shouldBe empty
  }

  test("records Kinesis keeps refusing fail close, saying how many and why") {
    val api = new FakeKinesisPutApi
    api.refuse((_, _) => Some("ProvisionedThroughputExceededException"))
    val options = base ++ Map("maxPutRetries" -> "1", "putRetryBackoff" -> "1ms", "maxPutRetryBackoff" -> "1ms")
    val e = intercept[KinesisConnectorException](task(rowWriter(api, options), Seq(row("k", "v"))))
    e.getCondition shouldBe "KINESIS_SINK_PUT_FAILED"
    e.getMessage should include("ProvisionedThroughputExceededException")
  }

  test("a row without a schema is refused, naming what to write instead") {
    val writer = rowWriter(new FakeKinesisPutApi)
    val e = intercept[KinesisConnectorException](task(writer, Seq(Row("k", "v".getBytes(UTF_8)))))
    e.getMessage should include("KinesisForeachWriter.forPairs")
  }

  test("the writer travels to executors; its description names the stream, never the credentials") {
    val secret = "fakeSecretKey/abcdefghijklmnopqrstuvwxyz01"
    val writer = KinesisForeachWriter(base ++ Map("awsAccessKey" -> "AKIAFAKE", "awsSecretKey" -> secret))
    val bytes = new ByteArrayOutputStream()
    new ObjectOutputStream(bytes).writeObject(writer)
    val copy = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray)).readObject()
      .asInstanceOf[KinesisForeachWriter]
    copy.toString shouldBe "KinesisForeachWriter[KinesisV2[out]]"
    writer.toString should not include secret
    // The copy runs a task of its own: nothing to send, so close returns at once.
    copy.open(3, 7) shouldBe true
    copy.close(null)
  }
}
