// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.efo

import java.nio.charset.StandardCharsets

import scala.collection.mutable

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.{LocalKinesis, LocalSpark}
import io.github.sparkkinesis.client.{KinesisRecord, SubscriptionHandle}
import io.github.sparkkinesis.client.sdk.KinesisClients
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}

/**
 * Enhanced fan-out against kinesis-mock: the consumer manager as the seed docs use it, and
 * SubscribeToShard over HTTP/2 on the plain http port (h2c with prior knowledge). The https
 * port is tested end to end from Python (tests/test_efo_subscription.py), where the JVM can be
 * started with a trust store.
 */
class EfoLocalKinesisSuite extends AnyFunSuite with Matchers with LocalSpark {

  override protected def sparkMaster: String = "local[1]"
  private var kinesis: LocalKinesis = _

  override def beforeAll(): Unit = {
    assume(LocalKinesis.nodeAvailable, "Node.js is needed to run kinesis-mock")
    kinesis = LocalKinesis.start()
    super.beforeAll()
  }

  // Spark stops first, as its readers may still talk to kinesis-mock.
  override def afterAll(): Unit =
    try super.afterAll()
    finally if (kinesis != null) kinesis.stop()

  test("the seed docs' consumer manager snippet runs as written, with only the import changed") {
    kinesis.createStream("seed-stream", 1)
    val awsAccessKeyId = kinesis.accessKey
    val awsSecretKey = kinesis.secretKey
    val kinesisRegion = kinesis.region
    // The snippet names no endpoint: the AWS SDK's own setting points it at kinesis-mock.
    System.setProperty("aws.endpointUrlKinesis", kinesis.endpoint)
    try {
      // ---- the seed docs' snippet, verbatim but for the package ----
      import io.github.sparkkinesis.AWSKinesisConsumerManager

      val manager = AWSKinesisConsumerManager.newManager()
        .option("awsAccessKey", awsAccessKeyId)
        .option("awsSecretKey", awsSecretKey)
        .option("region", kinesisRegion)
        .create()

      val consumers = manager.listConsumers("seed-stream")
      consumers.show() // display(consumers) in a Databricks notebook

      val consumerARN = manager.registerConsumer("seed-stream", "seed-consumer")

      manager.deregisterConsumer("seed-stream", "seed-consumer")
      // ---- end of the snippet ----

      consumers.columns shouldBe Array("consumerName", "consumerARN", "consumerStatus", "consumerCreationTimestamp")
      consumers.count() shouldBe 0
      consumerARN should include("seed-consumer")
      manager.toString should not include awsSecretKey
    } finally System.clearProperty("aws.endpointUrlKinesis")
  }

  test("register, list ACTIVE, register again for the same ARN, deregister") {
    kinesis.createStream("manager-stream", 1)
    val manager = io.github.sparkkinesis.AWSKinesisConsumerManager.newManager()
      .option("endpoint", kinesis.endpoint).option("region", kinesis.region)
      .option("awsAccessKey", kinesis.accessKey).option("awsSecretKey", kinesis.secretKey)
      .create()
    val before = System.currentTimeMillis()
    val arn = manager.registerConsumer("manager-stream", "sparkkinesis_q1")
    val after = System.currentTimeMillis()
    val listed = manager.listConsumers("manager-stream").collect()
    listed.map(r => (r.getString(0), r.getString(1), r.getString(2))) shouldBe
      Array(("sparkkinesis_q1", arn, "ACTIVE"))
    // Created while it was registered (Kinesis keeps whole seconds at least).
    listed.head.getTimestamp(3).getTime should (be >= before - 1000 and be <= after)
    manager.registerConsumer("manager-stream", "sparkkinesis_q1") shouldBe arn
    manager.deregisterConsumer("manager-stream", "sparkkinesis_q1")
    eventually(manager.listConsumersAsSeq("manager-stream") shouldBe empty)
    val e = intercept[io.github.sparkkinesis.errors.KinesisConnectorException](
      manager.deregisterConsumer("manager-stream", "sparkkinesis_q1"))
    e.getCondition shouldBe "KINESIS_EFO_CONSUMER_NOT_FOUND"
  }

  test("SubscribeToShard over h2c reads exactly the records put, across a forced re-subscription") {
    kinesis.createStream("efo-stream", 1)
    val connection = kinesis.connection()
    val arn = ConsumerRegistry(connection).resolve("efo-stream", "sparkkinesis_reader")
    val payloads = (0 until 30).map(i => s"event-$i")
    val placed = kinesis.put("efo-stream", payloads.take(15))
    val shardId = placed.head._1
    val metrics = new EfoMetrics
    val cursor = new SubscriptionCursor(KinesisClients.transport(connection), ShardKey("efo-stream", shardId), arn,
      ShardPosition.TrimHorizon, where = connection.where, metrics = metrics)
    try {
      val got = mutable.ArrayBuffer.empty[KinesisRecord]
      val deadline = System.nanoTime() + 60L * 1000000000L
      var later = Seq.empty[(String, String)]
      while (got.size < payloads.size && System.nanoTime() < deadline) {
        got ++= cursor.fetch(2000).records
        if (later.isEmpty && got.size == 15) {
          // The records put from now on arrive only through a new subscription.
          cursor.endSubscription()
          later = kinesis.put("efo-stream", payloads.drop(15))
        }
      }
      val all = placed ++ later
      got.map(r => new String(r.data, StandardCharsets.UTF_8)) shouldBe payloads
      got.map(_.sequenceNumber) shouldBe all.map(_._2)
      cursor.position shouldBe ShardPosition.AfterSequence(all.last._2)
      // At least the forced renewal; on a loaded machine a subscription can also time out and
      // be renewed, which must lose and repeat nothing either.
      cursor.subscriptions should be >= 2
      metrics.resubscriptions shouldBe (cursor.subscriptions - 1).toLong
      metrics.liveSubscriptions shouldBe 1
      cursor.millisBehindLatest shouldBe Some(0L)
    } finally cursor.close()
    metrics.liveSubscriptions shouldBe 0
  }

  test(
    "kinesis-mock refuses a second open subscription (ResourceInUse), and frees the shard once the first is cancelled") {
    kinesis.createStream("rule-stream", 1)
    val connection = kinesis.connection()
    val arn = ConsumerRegistry(connection).resolve("rule-stream", "sparkkinesis_rules")
    val shardId = kinesis.put("rule-stream", Seq("x")).head._1
    val transport = KinesisClients.transport(connection)
    def open(): (ShardSubscription, SubscriptionHandle) = {
      val s = new ShardSubscription(4, 1L << 20, io.github.sparkkinesis.time.SystemClock)
      (s, transport.subscribe(arn, shardId, ShardPosition.TrimHorizon, None, s))
    }
    def firstEvent(s: ShardSubscription): Boolean = {
      val deadline = System.nanoTime() + 30L * 1000000000L
      var got = false
      while (!got && s.status == ShardSubscription.Open && System.nanoTime() < deadline) {
        got = s.drain().nonEmpty
        if (!got) s.awaitSignal(100000000L)
      }
      got
    }
    val (first, firstHandle) = open()
    firstEvent(first) shouldBe true
    val (second, _) = open()
    eventually(second.status shouldBe a[ShardSubscription.Failed])
    val ShardSubscription.Failed(error) = second.status
    SubscriptionCursor.rootOf(error) shouldBe a[software.amazon.awssdk.services.kinesis.model.ResourceInUseException]

    first.cancel()
    firstHandle.cancel()
    // The mock frees the shard once it sees the cancellation, however soon the next call comes;
    // real Kinesis refuses a call within 5 s of the previous one, which SubscribeLimiter keeps
    // the connector from making. How soon the mock sees it depends on the host, so no time is
    // asserted: only that the shard is freed.
    val deadline = System.nanoTime() + 60L * 1000000000L
    var repeated = false
    while (!repeated && System.nanoTime() < deadline) {
      Thread.sleep(300)
      val (again, handle) = open()
      repeated = firstEvent(again)
      again.cancel()
      handle.cancel()
    }
    repeated shouldBe true
  }

  private def eventually(check: => Unit): Unit = {
    val deadline = System.nanoTime() + 20L * 1000000000L
    var done = false
    while (!done) {
      try {
        check
        done = true
      } catch {
        case e: org.scalatest.exceptions.TestFailedException =>
          if (System.nanoTime() > deadline) throw e
          Thread.sleep(200)
      }
    }
  }
}
