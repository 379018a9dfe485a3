// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench

import java.net.URI
import java.time.Instant
import java.util.concurrent.{CompletableFuture, ConcurrentLinkedQueue, TimeUnit}

import scala.jdk.CollectionConverters._

import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite
import software.amazon.awssdk.auth.credentials.{AwsBasicCredentials, StaticCredentialsProvider}
import software.amazon.awssdk.core.SdkBytes
import software.amazon.awssdk.http.{Protocol, ProtocolNegotiation}
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient
import software.amazon.awssdk.regions.Region
import software.amazon.awssdk.services.kinesis.{KinesisAsyncClient, KinesisClient}
import software.amazon.awssdk.services.kinesis.model._

/** The benchmark endpoint answers the AWS SDK v2 as Kinesis does (no timings here). */
class BenchKinesisSuite extends AnyFunSuite with BeforeAndAfterAll {
  private val credentials = StaticCredentialsProvider.create(AwsBasicCredentials.create("bench", "bench"))
  private var frozenNanos = 0L
  private val limits = new Limits(() => frozenNanos)
  private val server = new BenchKinesis(new BenchStreams(), None, 1)
  private val limited = new BenchKinesis(new BenchStreams(), Some(limits), 1)
  private var endpoint, limitedEndpoint: URI = _

  override def beforeAll(): Unit = {
    server.streams.create("synthetic", 3, 25, 100)
    server.streams.create("wide", 2500, 1, 10)
    limited.streams.create("limited", 1, 1000, 1024)
    endpoint = URI.create(s"http://127.0.0.1:${server.start(0)}")
    limitedEndpoint = URI.create(s"http://127.0.0.1:${limited.start(0)}")
  }

  override def afterAll(): Unit = { server.stop(); limited.stop() }

  private def client(at: URI = endpoint): KinesisClient = KinesisClient.builder().endpointOverride(at)
    .region(Region.US_EAST_1).credentialsProvider(credentials).httpClientBuilder(UrlConnectionHttpClient.builder()).build()

  private def iterator(c: KinesisClient, stream: String, shard: String, kind: ShardIteratorType, seq: String = null): String =
    c.getShardIterator(GetShardIteratorRequest.builder().streamName(stream).shardId(shard)
      .shardIteratorType(kind).startingSequenceNumber(seq).build()).shardIterator()

  private def readAll(c: KinesisClient, start: String, limit: Int): Seq[Record] = {
    val all = Seq.newBuilder[Record]
    var it = start
    var done = false
    while (!done) {
      val r = c.getRecords(GetRecordsRequest.builder().shardIterator(it).limit(limit).build())
      all ++= r.records().asScala
      it = r.nextShardIterator()
      done = r.records().isEmpty && r.millisBehindLatest() == 0
    }
    all.result()
  }

  private def checkSynthetic(records: Seq[Record]): Unit = {
    assert(records.size == 25)
    assert(records.map(r => BigInt(r.sequenceNumber())) == records.map(r => BigInt(r.sequenceNumber())).sorted)
    assert(records.map(_.sequenceNumber()).distinct.size == 25)
    assert(records.forall(_.data().asByteArray().length == 100))
    assert(records.forall(_.partitionKey() == "pk-1"))
    val created = server.streams.get("synthetic").get.createdMillis
    assert(records.forall(_.approximateArrivalTimestamp() == Instant.ofEpochMilli(created)))
  }

  test("GetRecords pages through a synthetic shard in CBOR, in order, and resumes after a sequence number") {
    val c = client()
    val records = readAll(c, iterator(c, "synthetic", "shardId-000000000001", ShardIteratorType.TRIM_HORIZON), limit = 7)
    checkSynthetic(records)
    val after = readAll(c, iterator(c, "synthetic", "shardId-000000000001", ShardIteratorType.AFTER_SEQUENCE_NUMBER,
      records(9).sequenceNumber()), limit = 100)
    assert(after.map(_.sequenceNumber()) == records.drop(10).map(_.sequenceNumber()))
    val at = readAll(c, iterator(c, "synthetic", "shardId-000000000001", ShardIteratorType.AT_SEQUENCE_NUMBER,
      records(9).sequenceNumber()), limit = 100)
    assert(at.map(_.sequenceNumber()) == records.drop(9).map(_.sequenceNumber()))
  }

  test("the same records in JSON (aws.cborEnabled=false)") {
    System.setProperty("aws.cborEnabled", "false")
    val c = try client() finally System.clearProperty("aws.cborEnabled")
    checkSynthetic(readAll(c, iterator(c, "synthetic", "shardId-000000000001", ShardIteratorType.TRIM_HORIZON), limit = 10))
  }

  test("ListShards pages with NextToken over 2,500 shards; DescribeStreamSummary counts them") {
    val c = client()
    val first = c.listShards(ListShardsRequest.builder().streamName("wide").maxResults(1000).build())
    val second = c.listShards(ListShardsRequest.builder().nextToken(first.nextToken()).maxResults(1000).build())
    val third = c.listShards(ListShardsRequest.builder().nextToken(second.nextToken()).maxResults(1000).build())
    assert(third.nextToken() == null)
    val shards = Seq(first, second, third).flatMap(_.shards().asScala)
    assert(shards.map(_.shardId()) == (0 until 2500).map(i => f"shardId-$i%012d"))
    assert(BigInt(shards.last.hashKeyRange().endingHashKey()) == (BigInt(1) << 128) - 1)
    val summary = c.describeStreamSummary(DescribeStreamSummaryRequest.builder().streamName("wide").build())
      .streamDescriptionSummary()
    assert(summary.openShardCount() == 2500)
    assert(summary.streamARN().endsWith(":stream/wide"))
  }

  test("PutRecords appends records that LATEST and AT_TIMESTAMP iterators then read") {
    val c = client()
    c.createStream(CreateStreamRequest.builder().streamName("puts").shardCount(1).build())
    val latest = iterator(c, "puts", "shardId-000000000000", ShardIteratorType.LATEST)
    val put = c.putRecords(PutRecordsRequest.builder().streamName("puts").records(
      (1 to 3).map(i => PutRecordsRequestEntry.builder().partitionKey(s"k$i").data(SdkBytes.fromUtf8String(s"v$i")).build()).asJava
    ).build())
    assert(put.failedRecordCount() == 0)
    val read = readAll(c, latest, 10)
    assert(read.map(_.data().asUtf8String()) == Seq("v1", "v2", "v3"))
    assert(read.map(_.sequenceNumber()) == put.records().asScala.map(_.sequenceNumber()))
    val fromTime = c.getShardIterator(GetShardIteratorRequest.builder().streamName("puts").shardId("shardId-000000000000")
      .shardIteratorType(ShardIteratorType.AT_TIMESTAMP).timestamp(read.head.approximateArrivalTimestamp()).build())
    assert(readAll(c, fromTime.shardIterator(), 10).map(_.partitionKey()) == Seq("k1", "k2", "k3"))
  }

  test("PutRecords lands on the shard Kinesis picks: the explicit hash key's, else the MD5 of the partition key's") {
    val c = client()
    c.createStream(CreateStreamRequest.builder().streamName("routed").shardCount(4).build())
    val keys = (0 until 40).map(i => s"key-$i")
    val put = c.putRecords(PutRecordsRequest.builder().streamName("routed").records(
      (keys.map(k => PutRecordsRequestEntry.builder().partitionKey(k).data(SdkBytes.fromUtf8String(k)).build()) :+
        PutRecordsRequestEntry.builder().partitionKey("any").explicitHashKey(((BigInt(1) << 128) - 1).toString)
          .data(SdkBytes.fromUtf8String("top")).build()).asJava).build())
    val ranges = c.listShards(ListShardsRequest.builder().streamName("routed").build()).shards().asScala
      .map(s => s.shardId() -> (BigInt(s.hashKeyRange().startingHashKey()), BigInt(s.hashKeyRange().endingHashKey()))).toMap
    keys.zip(put.records().asScala).foreach { case (k, r) =>
      val hash = BigInt(1, java.security.MessageDigest.getInstance("MD5").digest(k.getBytes("UTF-8")))
      val (low, high) = ranges(r.shardId())
      assert(low <= hash && hash <= high, s"$k on ${r.shardId()}")
    }
    assert(put.records().asScala.last.shardId() == "shardId-000000000003")
  }

  test("with limits: a shard takes 1,000 records and 1 MiB a second; PutRecords refuses the rest entry by entry") {
    val c = client(limitedEndpoint)
    c.createStream(CreateStreamRequest.builder().streamName("writes").shardCount(1).build())
    def putMany(n: Int, size: Int) = c.putRecords(PutRecordsRequest.builder().streamName("writes").records(
      (0 until n).map(i => PutRecordsRequestEntry.builder().partitionKey(s"k$i").data(SdkBytes.fromByteArray(new Array[Byte](size))).build()).asJava).build())
    frozenNanos += 10L * 1000000000L // a fresh second for the shard
    assert(putMany(500, 10).failedRecordCount() == 0)
    val second = putMany(500, 10)
    assert(second.failedRecordCount() == 0)
    val third = putMany(10, 10)
    assert(third.failedRecordCount() == 10)
    assert(third.records().asScala.forall(_.errorCode() == "ProvisionedThroughputExceededException"))
    frozenNanos += 1000000000L
    val big = putMany(3, 400 * 1024) // 1 MiB a second: two of three 400 KB records
    assert(big.records().asScala.map(r => Option(r.errorCode()).isEmpty) == Seq(true, true, false))
  }

  test("GET /calls answers the calls so far by operation, failed ones included") {
    val counting = new BenchKinesis(new BenchStreams(), None, 1)
    counting.streams.create("counted", 1, 1, 10)
    val at = URI.create(s"http://127.0.0.1:${counting.start(0)}")
    def calls(): String = new String(at.resolve("/calls").toURL.openStream().readAllBytes(), "UTF-8")
    try {
      assert(calls() == "{}")
      val c = client(at)
      intercept[ResourceNotFoundException](iterator(c, "missing", "shardId-000000000000", ShardIteratorType.TRIM_HORIZON))
      (1 to 2).foreach(_ => c.listShards(ListShardsRequest.builder().streamName("counted").build()))
      assert(calls() == """{"GetShardIterator":1,"ListShards":2}""")
    } finally counting.stop()
  }

  test("an unknown stream is ResourceNotFoundException, a bad limit InvalidArgumentException") {
    val c = client()
    intercept[ResourceNotFoundException](iterator(c, "missing", "shardId-000000000000", ShardIteratorType.TRIM_HORIZON))
    val it = iterator(c, "synthetic", "shardId-000000000000", ShardIteratorType.TRIM_HORIZON)
    intercept[InvalidArgumentException](c.getRecords(GetRecordsRequest.builder().shardIterator(it).limit(10001).build()))
  }

  test("SubscribeToShard over h2c streams every record in order through the AWS event stream") {
    val c = client()
    val streamArn = c.describeStreamSummary(DescribeStreamSummaryRequest.builder().streamName("synthetic").build())
      .streamDescriptionSummary().streamARN()
    val consumer = c.registerStreamConsumer(RegisterStreamConsumerRequest.builder().streamARN(streamArn)
      .consumerName("suite").build()).consumer()
    assert(c.listStreamConsumers(ListStreamConsumersRequest.builder().streamARN(streamArn).build())
      .consumers().asScala.map(_.consumerName()) == Seq("suite"))
    val async = KinesisAsyncClient.builder().endpointOverride(endpoint).region(Region.US_EAST_1).credentialsProvider(credentials)
      .httpClientBuilder(NettyNioAsyncHttpClient.builder().protocol(Protocol.HTTP2)
        .protocolNegotiation(ProtocolNegotiation.ASSUME_PROTOCOL)).build()
    val events = new ConcurrentLinkedQueue[SubscribeToShardEvent]()
    val got = new CompletableFuture[Unit]()
    val handler = SubscribeToShardResponseHandler.builder().subscriber((e: SubscribeToShardEventStream) => e match {
      case event: SubscribeToShardEvent =>
        events.add(event)
        if (events.asScala.map(_.records().size).sum >= 25) got.complete(())
      case _ =>
    }).build()
    val call = async.subscribeToShard(SubscribeToShardRequest.builder().consumerARN(consumer.consumerARN())
      .shardId("shardId-000000000001")
      .startingPosition(StartingPosition.builder().`type`(ShardIteratorType.TRIM_HORIZON).build()).build(), handler)
    got.get(30, TimeUnit.SECONDS)
    call.cancel(true)
    val records = events.asScala.toSeq.flatMap(_.records().asScala)
    checkSynthetic(records)
    assert(events.asScala.last.continuationSequenceNumber() == records.last.sequenceNumber())
    async.close()
  }

  test("with limits: the sixth GetRecords of a second is throttled, and so is a shard read past 2 MiB/s") {
    val c = client(limitedEndpoint)
    val it = iterator(c, "limited", "shardId-000000000000", ShardIteratorType.TRIM_HORIZON)
    val first = c.getRecords(GetRecordsRequest.builder().shardIterator(it).limit(10).build())
    (2 to 5).foreach(_ => c.getRecords(GetRecordsRequest.builder().shardIterator(first.nextShardIterator()).limit(10).build()))
    intercept[ProvisionedThroughputExceededException](
      c.getRecords(GetRecordsRequest.builder().shardIterator(first.nextShardIterator()).limit(10).build()))
    frozenNanos += 1000000000L // a second later: 5 more calls, and 1,000 KB read (within the bucket)
    val all = c.getRecords(GetRecordsRequest.builder().shardIterator(it).build())
    assert(all.records().size == 1000)
    limits.read("limited/shardId-000000000000", 2L * 1024 * 1024) // as if the shard had read 2 MiB more
    intercept[ProvisionedThroughputExceededException](c.getRecords(GetRecordsRequest.builder().shardIterator(it).build()))
  }

  test("Limits: one SubscribeToShard a second per consumer and shard, none again within 5 seconds") {
    var now = 0L
    val l = new Limits(() => now)
    assert(l.admitSubscribe("c/s").isEmpty)
    assert(l.admitSubscribe("c/s").map(_.code).contains("LimitExceededException"))
    assert(l.admitSubscribe("c/other").isEmpty)
    now += 2000000000L
    assert(l.admitSubscribe("c/s").map(_.code).contains("ResourceInUseException"))
    now += 4000000000L
    assert(l.admitSubscribe("c/s").isEmpty)
  }

  test("sequence numbers and iterators map back to their shard and position") {
    val prefix = Sequence.prefix(42)
    assert(Sequence.parse(Sequence.text(prefix, 0L)).contains((42, 0L)))
    assert(Sequence.parse(Sequence.text(prefix, -1L)).contains((42, -1L)))
    assert(Sequence.parse(Sequence.text(prefix, 123456789L)).contains((42, 123456789L)))
    assert(Sequence.parse("12345").isEmpty)
    assert(Sequence.parseIterator(Sequence.iterator("s", 3, 7L)).contains(("s", 3, 7L)))
    assert(Sequence.parseIterator("garbage").isEmpty)
  }

  test("MillisBehindLatest is that of the read: 0 for an answer that reached the tip, though records came since") {
    val shard = new BenchStreams().create("busy", 1, 0L, 10).get.shards.head
    val now = System.currentTimeMillis()
    shard.append(StoredRecord("k", Array[Byte](1), now - 5000))
    val caughtUp = RecordRun.take(shard, 0L, Limits.MaxRecordsPerCall, Limits.MaxBytesPerCall)
    shard.append(StoredRecord("k", Array[Byte](2), now))
    assert(caughtUp.millisBehindLatest(now + 100) == 0L)
    val behind = RecordRun.take(shard, 0L, 1, Limits.MaxBytesPerCall)
    assert(behind.millisBehindLatest(now + 100) == 100L)
  }
}
