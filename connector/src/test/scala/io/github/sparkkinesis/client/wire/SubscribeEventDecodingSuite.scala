// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.wire

import java.net.URI
import java.nio.charset.StandardCharsets.UTF_8
import java.util.Base64
import java.util.concurrent.{ConcurrentLinkedQueue, TimeUnit}

import scala.jdk.CollectionConverters._
import scala.util.Try

import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite
import software.amazon.awssdk.auth.credentials.{AwsBasicCredentials, StaticCredentialsProvider}
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration
import software.amazon.awssdk.http.{Protocol, ProtocolNegotiation}
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient
import software.amazon.awssdk.regions.Region
import software.amazon.awssdk.services.kinesis.KinesisAsyncClient
import software.amazon.awssdk.services.kinesis.model.{
  ShardIteratorType, StartingPosition, SubscribeToShardEvent, SubscribeToShardEventStream, SubscribeToShardRequest,
  SubscribeToShardResponseHandler
}
import software.amazon.eventstream.{HeaderValue, Message}

import io.github.sparkkinesis.kpl.AggregateBuilder
import io.github.sparkkinesis.offsets.ShardPosition
import io.github.sparkkinesis.client.{ConnectionConfig, CredentialsConfig, KinesisRecord, KplCounts, ShardEvent}
import io.github.sparkkinesis.client.sdk.{AwsClientFactory, SdkSubscriptionTransport}

/**
 * SubscribeToShard events' records read by [[SubscribeEventJson]] give exactly what the SDK's own
 * unmarshaller gives for the same event stream: each stream is served by a local HTTP/2 endpoint,
 * in frames small enough to split its messages, and read twice, by the connector's client and by
 * a plain SDK client.
 */
class SubscribeEventDecodingSuite extends AnyFunSuite with BeforeAndAfterAll {
  private val server = new EventStreamServer
  private lazy val connection =
    ConnectionConfig("us-east-1", Some(server.endpoint), CredentialsConfig.StaticKeys("test", "test", None))
  private lazy val ours = AwsClientFactory.asyncKinesis(connection)
  private lazy val plainSdk = KinesisAsyncClient.builder()
    .httpClientBuilder(NettyNioAsyncHttpClient.builder().protocol(Protocol.HTTP2)
        .protocolNegotiation(ProtocolNegotiation.ASSUME_PROTOCOL))
    .region(Region.US_EAST_1).endpointOverride(URI.create(server.endpoint))
    .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test"))).build()

  override def afterAll(): Unit = { ours.close(); plainSdk.close(); server.close() }

  // ---- event streams, framed by the SDK's own event stream library ----

  private def message(headers: (String, String)*)(payload: String): Array[Byte] = {
    val h = new java.util.LinkedHashMap[String, HeaderValue]()
    headers.foreach { case (k, v) => h.put(k, HeaderValue.fromString(v)) }
    val buffer = new Message(h, payload.getBytes(UTF_8)).toByteBuffer
    val out = new Array[Byte](buffer.remaining)
    buffer.get(out)
    out
  }

  private val initialResponse =
    message(":message-type" -> "event", ":event-type" -> "initial-response", ":content-type" -> "application/json")(
      "{}")

  private def event(json: String): Array[Byte] =
    message(":message-type" -> "event", ":event-type" -> "SubscribeToShardEvent",
      ":content-type" -> "application/json")(json)

  private def base64(data: Array[Byte]) = Base64.getEncoder.encodeToString(data)

  private def recordJson(key: String, data: Array[Byte], seq: String, arrival: String = "1700000000.123") =
    s"""{"SequenceNumber":"$seq","ApproximateArrivalTimestamp":$arrival,"Data":"${base64(data)}",""" +
      s""""PartitionKey":"$key","EncryptionType":"NONE"}"""

  private def eventJson(records: Seq[String], continuation: String = "49590000000000000000000000000000000000000099",
      extra: String = "") =
    s"""{"Records":[${records.mkString(",")}],"ContinuationSequenceNumber":"$continuation",""" +
      s""""MillisBehindLatest":1234$extra}"""

  // ---- reading a stream twice ----

  private final case class Read(events: Seq[(SubscribeToShardEvent, Option[(Seq[KinesisRecord], KplCounts)])],
      failure: Option[Throwable])

  private def subscribe(client: KinesisAsyncClient, decoded: Option[SubscribeEventDecoding.Decoded]): Read = {
    val events = new ConcurrentLinkedQueue[(SubscribeToShardEvent, Option[(Seq[KinesisRecord], KplCounts)])]()
    val handler = SubscribeToShardResponseHandler.builder()
      .subscriber((e: SubscribeToShardEventStream) =>
        e match {
          case s: SubscribeToShardEvent => events.add((s, decoded.flatMap(_.next())))
          case _ =>
        })
      .build()
    val request = SubscribeToShardRequest.builder()
      .consumerARN("arn:aws:kinesis:us-east-1:000000000000:stream/s/consumer/c:1")
      .shardId("shardId-000000000000")
      .startingPosition(StartingPosition.builder().`type`(ShardIteratorType.TRIM_HORIZON).build())
    decoded.foreach(d =>
      request.overrideConfiguration((o: AwsRequestOverrideConfiguration.Builder) =>
        o.putExecutionAttribute(SubscribeEventDecoding.Attribute, d)))
    val done = Try(client.subscribeToShard(request.build(), handler).get(30, TimeUnit.SECONDS))
    Read(events.asScala.toSeq, done.failed.toOption)
  }

  private def shape(e: ShardEvent) =
    (e.records.map(r =>
        (r.partitionKey, r.data.toSeq, r.sequenceNumber, r.approximateArrivalMillis,
          r.subSequenceNumber, r.endsKinesisRecord)), e.continuationSequenceNumber, e.millisBehindLatest, e.childShards,
      e.kpl)

  private def rootCause(t: Throwable): Throwable =
    if (t.getCause == null || t.getCause == t) t else rootCause(t.getCause)

  /**
   * Serves `messages` in frames of each size, reads them with both clients, and checks the
   * connector's events and failure (there must be one if `failing`) against the SDK's. Returns the connector's events and how many of them
   * it read the records of itself.
   */
  private def readBoth(messages: Array[Byte]*)(chunks: Int*): (Seq[ShardEvent], Int) =
    readBothFailing(failing = false, messages: _*)(chunks: _*)

  private def readBothFailing(failing: Boolean, messages: Array[Byte]*)(chunks: Int*): (Seq[ShardEvent], Int) = {
    server.body = Array.concat(messages: _*)
    chunks.map { chunk =>
      server.chunk = chunk
      val sdk = subscribe(plainSdk, None)
      val expected = sdk.events.map { case (e, _) => SdkSubscriptionTransport.toShardEvent(e, None, None) }
      val decoded = new SubscribeEventDecoding.Decoded(None)
      val connector = subscribe(ours, Some(decoded))
      val read = connector.events.map { case (e, aside) => SdkSubscriptionTransport.toShardEvent(e, aside, None) }
      assert(read.map(shape) == expected.map(shape), s"in frames of $chunk bytes")
      assert(connector.failure.map(t => rootCause(t).getClass) == sdk.failure.map(t => rootCause(t).getClass),
        s"in frames of $chunk bytes: ${connector.failure} against ${sdk.failure}")
      assert(sdk.failure.isDefined == failing, s"in frames of $chunk bytes: ${sdk.failure}")
      // (A stream that fails may leave records put aside for events the SDK never delivered.)
      if (connector.failure.isEmpty) assert(decoded.next().isEmpty, "every event's records were taken")
      val readAside = connector.events.filter(_._2.isDefined)
      assert(readAside.forall(_._1.records().isEmpty), "the SDK was not given the records the connector read")
      (read, readAside.size)
    }.last
  }

  private val chunkSizes = Seq(1 << 20, 4096, 7, 1)

  test("with recordDecoder sdk no event is read by the connector: its requests do not ask for it") {
    def asks(sdkDecoding: Boolean) =
      SdkSubscriptionTransport.request("arn", "shardId-000000000000", ShardPosition.TrimHorizon,
        new SubscribeEventDecoding.Decoded(None), sdkDecoding)
        .overrideConfiguration().get().executionAttributes().getAttribute(SubscribeEventDecoding.Attribute) != null
    assert(asks(sdkDecoding = false))
    assert(!asks(sdkDecoding = true))
  }

  test("records, their data, keys, sequence numbers and arrival times, in frames of any size") {
    val data = (0 until 40).map(i => s"record-$i-${"x" * (i * 37)}".getBytes(UTF_8))
    val events = data.grouped(10).zipWithIndex.map { case (group, g) =>
      event(eventJson(group.zipWithIndex.map { case (d, i) => recordJson(s"key-$g-$i", d, s"4959$g$i") }))
    }.toSeq
    val (read, readAside) = readBoth(initialResponse +: events: _*)(chunkSizes: _*)
    assert(readAside == 4, "the connector read every event's records itself")
    assert(read.flatMap(_.records).map(r => new String(r.data, UTF_8)) == data.map(new String(_, UTF_8)))
    assert(read.head.records.head.approximateArrivalMillis == 1700000000123L)
  }

  test("events whatever their content type says, as the SDK reads them all as JSON") {
    val one = eventJson(Seq(recordJson("a", Array[Byte](1), "1")))
    val (read, readAside) = readBoth(initialResponse,
      message(":message-type" -> "event", ":event-type" -> "SubscribeToShardEvent",
        ":content-type" -> "application/x-amz-json-1.1")(one),
      message(":event-type" -> "SubscribeToShardEvent", ":message-type" -> "event")(one))(1 << 20, 8)
    assert(readAside == 2)
    assert(read.map(_.records.map(_.partitionKey)) == Seq(Seq("a"), Seq("a")))
  }

  test("base64 data of every length, padded or not, and records larger than the decoder's first buffer") {
    val sizes = (0 to 7) ++ Seq(4095, 4096, 4097, 100000)
    val padded = sizes.map(n => recordJson(s"p$n", Array.tabulate(n)(i => (i * 31).toByte), s"1$n"))
    val unpadded = (1 to 5).map { n =>
      val text = base64(Array.tabulate(n)(i => (i + 200).toByte)).takeWhile(_ != '=')
      s"""{"SequenceNumber":"2$n","Data":"$text","PartitionKey":"u$n"}"""
    }
    val (read, readAside) = readBoth(initialResponse, event(eventJson(padded ++ unpadded)))(1 << 20, 1000)
    assert(readAside == 1)
    assert(read.head.records.map(_.data.length) == sizes ++ (1 to 5))
  }

  test("base64 data the JDK's decoder refuses fails the subscription as it fails the SDK's") {
    Seq("QQ=", "QUJD=", "Q", "QU*D", "==").foreach { text =>
      val bad = s"""{"SequenceNumber":"1","Data":"$text","PartitionKey":"k"}"""
      readBothFailing(failing = true, initialResponse, event(eventJson(Seq(bad))))(1 << 20)
    }
  }

  test("arrival times in every form a JSON number takes are read as the SDK reads them") {
    val forms = Seq("1700000000", "1700000000.1", "1700000000.98765", "1.700000000123E9", "1.7e9", "17000000001e-1",
      "-1.5", "0.0004", " 1700000000.5 ")
    val records = forms.zipWithIndex.map { case (t, i) => recordJson(s"k$i", Array(i.toByte), s"$i", t) }
    val (read, readAside) = readBoth(initialResponse, event(eventJson(records)))(1 << 20, 3)
    assert(readAside == 1)
    assert(read.head.records.map(_.approximateArrivalMillis).take(2) == Seq(1700000000000L, 1700000000100L))
  }

  test("keys with escapes and non-ASCII text, empty data, nulls, unknown fields and whitespace") {
    val records = Seq(
      recordJson("quote\\\"back\\\\slash\\/tab\\t\\u00e9\\ud83d\\ude00", "a".getBytes(UTF_8), "1"),
      recordJson("caf\u00e9-\u65e5\u672c", Array.emptyByteArray, "2"),
      """{"SequenceNumber":"3","Data":"AQI=","PartitionKey":"p","EncryptionType":null,""" +
        """"ApproximateArrivalTimestamp":null,"SomethingNew":{"x":[1,true,false,null,"s\"",{"y":-2.5e3}]}}""",
      " {\n \"Data\" : \"AQ\" , \"PartitionKey\" :\"q\",\t\"SequenceNumber\":\"4\"\r\n} ")
    val (read, readAside) = readBoth(initialResponse, event(eventJson(records)))(1 << 20, 5)
    assert(readAside == 1)
    assert(read.head.records.map(_.partitionKey) ==
      Seq("quote\"back\\slash/tab\t\u00e9\ud83d\ude00", "caf\u00e9-\u65e5\u672c", "p", "q"))
    assert(read.head.records(2).data.toSeq == Seq[Byte](1, 2))
  }

  test("KPL aggregates are split as the SDK path splits them") {
    val aggregate = new AggregateBuilder()
    (0 until 5).foreach(i => aggregate.add(s"user-$i", None, s"payload-$i".getBytes(UTF_8)))
    val records = Seq(recordJson("k", aggregate.result(), "777"), recordJson("plain", "plain".getBytes(UTF_8), "778"))
    val (read, readAside) = readBoth(initialResponse, event(eventJson(records)))(1 << 20, 64)
    assert(readAside == 1)
    assert(read.head.records.map(_.partitionKey) == (0 until 5).map(i => s"user-$i") :+ "plain")
  }

  test("child shards, the shard's end and an event without records reach the SDK intact") {
    val childShards = ""","ChildShards":[{"ShardId":"shardId-000000000002","ParentShards":["shardId-000000000000"],""" +
      """"HashKeyRange":{"StartingHashKey":"0","EndingHashKey":"100"}}]"""
    val end = s"""{"Records":[${recordJson("last", Array[Byte](7), "9")}],"MillisBehindLatest":0$childShards}"""
    val (read, readAside) = readBoth(initialResponse,
      event("""{"ContinuationSequenceNumber":"5","MillisBehindLatest":3}"""),
      event("""{"Records":null,"ContinuationSequenceNumber":"6","MillisBehindLatest":0}"""), event(end))(1 << 20, 11)
    assert(readAside == 3)
    assert(read.map(_.continuationSequenceNumber) == Seq(Some("5"), Some("6"), None))
    assert(read.last.childShards == Seq("shardId-000000000002"))
    assert(read.last.isShardEnd && read.last.records.map(_.partitionKey) == Seq("last"))
  }

  test("an event it cannot read is left to the SDK, and the events around it are still read") {
    val escapedData = s"""{"SequenceNumber":"2","Data":"AQ\\/=","PartitionKey":"k"}"""
    val quotedTime =
      """{"SequenceNumber":"3","Data":"AQ==","PartitionKey":"k","ApproximateArrivalTimestamp":"1700000000"}"""
    val (read, readAside) = readBoth(initialResponse,
      event(eventJson(Seq(recordJson("a", Array[Byte](1), "1")))),
      event(eventJson(Seq(escapedData))),
      event(eventJson(Seq(quotedTime))),
      event(eventJson(Seq(recordJson("b", Array[Byte](4), "4")))))(1 << 20, 13)
    assert(readAside == 2, "the first and last events were read by the connector, the others by the SDK")
    assert(read.flatMap(_.records).map(_.sequenceNumber) == Seq("1", "2", "3", "4"))
  }

  test("a record without its sequence number or partition key fails the subscription with an error naming the field") {
    val complete = recordJson("a", Array[Byte](1), "1")
    Seq(
      "SequenceNumber" -> """{"Data":"AQ==","PartitionKey":"k"}""",
      "SequenceNumber" -> """{"Data":"AQ==","PartitionKey":"k","SequenceNumber":null}""",
      "PartitionKey" -> """{"Data":"AQ==","SequenceNumber":"2"}""",
      "PartitionKey" -> """{"Data":"AQ==","PartitionKey":null,"SequenceNumber":"2"}""").foreach {
      case (missing, incomplete) =>
        server.body = Array.concat(initialResponse, event(eventJson(Seq(complete, incomplete))))
        server.chunk = 1 << 20
        Seq(false, true).foreach { sdkDecoding =>
          val ended = new java.util.concurrent.CompletableFuture[Option[Throwable]]()
          val events = new ConcurrentLinkedQueue[ShardEvent]()
          new SdkSubscriptionTransport(() => ours, connection.credentials, sdkDecoding).subscribe(
            "arn:aws:kinesis:us-east-1:000000000000:stream/s/consumer/c:1", "shardId-000000000000",
            ShardPosition.TrimHorizon, None,
            new org.reactivestreams.Subscriber[ShardEvent] {
              override def onSubscribe(s: org.reactivestreams.Subscription): Unit = s.request(Long.MaxValue)
              override def onNext(e: ShardEvent): Unit = events.add(e)
              override def onError(t: Throwable): Unit = ended.complete(Some(t))
              override def onComplete(): Unit = ended.complete(None)
            })
          val failure = ended.get(30, TimeUnit.SECONDS)
          val how = s"with recordDecoder ${if (sdkDecoding) "sdk" else "connector"}, $incomplete"
          assert(events.isEmpty, s"$how: no event of the answer is passed on")
          assert(
            failure.exists(t =>
              String.valueOf(rootCause(t).getMessage).contains(s"Record 2 of the answer") &&
                rootCause(t).getMessage.contains(s"has no $missing")), s"$how: $failure")
        }
    }
  }

  test("an exception sent in the stream ends it as it ends the SDK's, after the events before it") {
    val exception = message(":message-type" -> "exception", ":exception-type" -> "ResourceNotFoundException",
      ":content-type" -> "application/json")("""{"message":"the consumer is gone"}""")
    val (read, readAside) = readBothFailing(failing = true, initialResponse,
      event(eventJson(Seq(recordJson("a", Array[Byte](1), "1")))), exception)(1 << 20, 9)
    assert(readAside == 1)
    assert(read.map(_.records.size) == Seq(1))
  }

  test("a damaged message fails the subscription as it fails the SDK's, and nothing after it is read") {
    val good = event(eventJson(Seq(recordJson("a", Array[Byte](1), "1"))))
    val damagedPayload = event(eventJson(Seq(recordJson("b", Array[Byte](2), "2"))))
    damagedPayload(damagedPayload.length / 2) = (damagedPayload(damagedPayload.length / 2) ^ 1).toByte
    val damagedPrelude = event(eventJson(Seq(recordJson("c", Array[Byte](3), "3"))))
    damagedPrelude(9) = (damagedPrelude(9) ^ 1).toByte
    Seq(damagedPayload, damagedPrelude).foreach { damaged =>
      // Whether the SDK delivers the good event before it fails depends on the frames: either way, the same.
      val (read, _) = readBothFailing(failing = true, initialResponse, good, damaged, good)(1 << 20, 6)
      assert(Seq(Nil, Seq("1")).contains(read.flatMap(_.records.map(_.sequenceNumber))))
    }
  }
}
