// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files

import scala.jdk.CollectionConverters._

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers
import software.amazon.awssdk.services.kinesis.model.{GetRecordsRequest, GetShardIteratorRequest, ListShardsRequest}
import software.amazon.awssdk.services.kinesis.model.ShardIteratorType.TRIM_HORIZON

import io.github.sparkkinesis.{LocalKinesis, LocalSpark}
import io.github.sparkkinesis.client.{ConnectionConfig, CredentialsConfig}
import io.github.sparkkinesis.client.sdk.KinesisClients

/**
 * Kinesis to Kinesis in real-time mode from Scala, with Spark's sink check on, against
 * kinesis-mock: the Scala example of docs/real-time.md ("The sink") as written there
 * (tests/test_docs.py checks that the two are the same text).
 */
class RealTimePipelineSuite extends AnyFunSuite with Matchers with LocalSpark {

  private var kinesis: LocalKinesis = _
  // The example names no endpoint or keys: the AWS SDK's own settings point it at kinesis-mock.
  private val sdkSettings = Seq("aws.endpointUrlKinesis", "aws.accessKeyId", "aws.secretAccessKey")

  override def beforeAll(): Unit = {
    assume(LocalKinesis.nodeAvailable, "Node.js is needed to run kinesis-mock")
    kinesis = LocalKinesis.start()
    sdkSettings.zip(Seq(kinesis.endpoint, kinesis.accessKey, kinesis.secretKey)).foreach {
      case (key, value) => System.setProperty(key, value)
    }
    // A client another suite built for this connection would still point at its endpoint.
    KinesisClients.release(ConnectionConfig(kinesis.region, None, CredentialsConfig.DefaultChain))
    super.beforeAll()
  }

  override def afterAll(): Unit =
    try super.afterAll()
    finally {
      sdkSettings.foreach(System.clearProperty)
      if (kinesis != null) kinesis.stop()
    }

  // ---- docs/real-time.md, "The sink": the Scala example ----
  import org.apache.spark.sql.DataFrame
  import org.apache.spark.sql.streaming.{StreamingQuery, Trigger}
  import io.github.sparkkinesis.sink.KinesisForeachWriter

  def copyInRealTime(events: DataFrame, checkpoint: String): StreamingQuery =
    events.select("partitionKey", "data").writeStream
      .foreach(KinesisForeachWriter(Map("streamName" -> "watch-events-clean", "region" -> "us-east-1")))
      .outputMode("update")
      .option("checkpointLocation", checkpoint)
      .trigger(Trigger.RealTime("5 seconds"))
      .start()
  // ---- end of the example ----

  /** The payloads of every record in `stream`, shard by shard in order. */
  private def payloads(stream: String): Seq[String] = {
    val client = kinesis.client
    client.listShards(ListShardsRequest.builder().streamName(stream).build()).shards().asScala.toSeq.flatMap { s =>
      val iterator = client.getShardIterator(GetShardIteratorRequest.builder().streamName(stream)
          .shardId(s.shardId()).shardIteratorType(TRIM_HORIZON).build()).shardIterator()
      client.getRecords(GetRecordsRequest.builder().shardIterator(iterator).build()).records().asScala
        .map(r => new String(r.data().asByteArray(), UTF_8))
    }
  }

  test("the example copies every record into the second stream once, with Spark's checks on") {
    spark.conf.get("spark.sql.streaming.realTimeMode.allowlistCheck", "true") shouldBe "true"
    kinesis.createStream("watch-events", 1)
    kinesis.createStream("watch-events-clean", 1)
    val sent = (0 until 40).map(i => s"event-$i")
    kinesis.put("watch-events", sent.take(20))
    val events = spark.readStream.format("kinesis")
      .option("streamName", "watch-events").option("region", "us-east-1")
      .option("initialPosition", "trim_horizon").load()

    val query = copyInRealTime(events, Files.createTempDirectory("pipeline-").toString)
    try {
      awaitCopies(sent.take(20), query)
      kinesis.put("watch-events", sent.drop(20)) // while the batch runs: passed on as they come
      awaitCopies(sent, query)
    } finally query.stop()
    payloads("watch-events-clean").sorted shouldBe sent.sorted // each with a key of its own
  }

  test("with recordIds the writer tags each row with the query's id; a real-time read returns the ids") {
    kinesis.createStream("ids-in", 1)
    kinesis.createStream("ids-out", 1)
    val sent = (0 until 10).map(i => s"tagged-$i")
    kinesis.put("ids-in", sent)
    def read(stream: String, options: (String, String)*) = spark.readStream.format("kinesis")
      .option("streamName", stream).option("region", "us-east-1").option("initialPosition", "trim_horizon")
      .options(options.toMap).load()
    val copy = read("ids-in").select("partitionKey", "data").writeStream
      .foreach(KinesisForeachWriter(Map("streamName" -> "ids-out", "region" -> "us-east-1", "recordIds" -> "true")))
      .outputMode("update")
      .option("checkpointLocation", Files.createTempDirectory("ids-copy-").toString)
      .trigger(Trigger.RealTime("5 seconds"))
      .start()
    try awaitRecords("ids-out", sent.size, copy)
    finally copy.stop()

    val ids = read("ids-out", "includeRecordIds" -> "true").selectExpr("CAST(data AS STRING) AS data", "recordId")
      .writeStream.foreach(new CollectedRows.Writer).outputMode("update")
      .option("checkpointLocation", Files.createTempDirectory("ids-read-").toString)
      .trigger(Trigger.RealTime("5 seconds"))
      .start()
    try {
      val deadline = System.nanoTime() + 90L * 1000000000L
      while (CollectedRows.rows.size < sent.size) {
        ids.exception.foreach(e => throw e)
        require(System.nanoTime() < deadline, "timed out waiting for the real-time read")
        Thread.sleep(200)
      }
    } finally ids.stop()
    val rows = CollectedRows.rows.asScala.toSeq
    rows.map(_._1).sorted shouldBe sent.sorted
    // One task, batch 0 of the copy: ids numbered in the order the task wrote the rows.
    rows.sortBy(_._1.stripPrefix("tagged-").toInt).map(_._2) shouldBe sent.indices.map(i => s"${copy.id}/0/0/$i")
  }

  private def awaitCopies(expected: Seq[String], query: StreamingQuery): Unit =
    awaitRecords("watch-events-clean", expected.size, query)

  private def awaitRecords(stream: String, count: Int, query: StreamingQuery): Unit = {
    val deadline = System.nanoTime() + 90L * 1000000000L
    while (payloads(stream).size < count) {
      query.exception.foreach(e => throw e)
      require(System.nanoTime() < deadline, s"timed out waiting for $count records in $stream")
      Thread.sleep(200)
    }
  }
}

/** The rows a real-time query's foreach sink was given, in this JVM (Spark runs locally). */
private object CollectedRows {
  val rows = new java.util.concurrent.ConcurrentLinkedQueue[(String, String)]()

  final class Writer extends org.apache.spark.sql.ForeachWriter[org.apache.spark.sql.Row] {
    override def open(partitionId: Long, epochId: Long): Boolean = true
    override def process(row: org.apache.spark.sql.Row): Unit = rows.add(row.getString(0) -> row.getString(1))
    override def close(errorOrNull: Throwable): Unit = ()
  }
}
