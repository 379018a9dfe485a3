// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.sdk

import java.time.Instant

import scala.collection.mutable
import scala.jdk.CollectionConverters._

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers
import software.amazon.awssdk.core.SdkBytes
import software.amazon.awssdk.services.kinesis.KinesisClient
import software.amazon.awssdk.services.kinesis.model._

import io.github.sparkkinesis.errors.KinesisConnectorException
import io.github.sparkkinesis.offsets.ShardPosition
import io.github.sparkkinesis.client.{ConnectionConfig, CredentialsConfig, PutEntry, PutStored}

/**
 * A stream named by ARN (`streamARN`) is named by its ARN in every request about it: a name
 * is resolved in the caller's account, so only the ARN reaches another account's stream.
 * The requests are those the real SDK adapters build, caught by a recording SDK client.
 */
class StreamArnRequestsSuite extends AnyFunSuite with Matchers {

  private val arn = "arn:aws:kinesis:eu-west-1:210987654321:stream/orders"
  private val byName = ConnectionConfig("eu-west-1", None, CredentialsConfig.DefaultChain)
  private val byArn = byName.copy(streamArns = Map("orders" -> arn))

  /** Answers as Kinesis would, and keeps every request. ListShards answers in two pages. */
  private final class RecordingClient extends KinesisClient {
    val requests = mutable.ArrayBuffer.empty[KinesisRequest]
    var missing = false

    private def answer[T](request: KinesisRequest)(response: => T): T = synchronized {
      requests += request
      if (missing) throw ResourceNotFoundException.builder().message("Stream not found").build()
      response
    }

    override def serviceName(): String = "kinesis"
    override def close(): Unit = ()

    override def listShards(r: ListShardsRequest): ListShardsResponse = answer(r) {
      val (shard, next) =
        if (r.nextToken() == null) ("shardId-000000000000", "page-2") else ("shardId-000000000001", null)
      ListShardsResponse.builder().shards(Shard.builder().shardId(shard).build()).nextToken(next).build()
    }

    override def describeStreamSummary(r: DescribeStreamSummaryRequest): DescribeStreamSummaryResponse = answer(r) {
      val summary = StreamDescriptionSummary.builder().streamName("orders").streamARN(arn)
        .streamCreationTimestamp(Instant.ofEpochMilli(1000L)).build()
      DescribeStreamSummaryResponse.builder().streamDescriptionSummary(summary).build()
    }

    override def getShardIterator(r: GetShardIteratorRequest): GetShardIteratorResponse =
      answer(r)(GetShardIteratorResponse.builder().shardIterator("iterator-1").build())

    override def getRecords(r: GetRecordsRequest): GetRecordsResponse = answer(r) {
      val record = Record.builder().partitionKey("k").sequenceNumber("1").data(SdkBytes.fromUtf8String("v"))
        .approximateArrivalTimestamp(Instant.ofEpochMilli(2000L)).build()
      GetRecordsResponse.builder().records(record).nextShardIterator("iterator-2").millisBehindLatest(0L).build()
    }

    override def putRecords(r: PutRecordsRequest): PutRecordsResponse = answer(r) {
      val stored = PutRecordsResultEntry.builder().sequenceNumber("1").shardId("shardId-000000000000").build()
      PutRecordsResponse.builder().records(r.records().asScala.map(_ => stored).asJava).build()
    }
  }

  /** Every call the connector makes about a stream, through the real adapters. */
  private def everyCall(connection: ConnectionConfig, client: RecordingClient): Unit = {
    val api = new SdkKinesisApi(() => client, connection, () => client)
    api.listShards("orders", 1).map(_.shardId) shouldBe Seq("shardId-000000000000", "shardId-000000000001")
    api.streamCreatedAt("orders") shouldBe 1000L
    val iterator = api.shardIterator("orders", "shardId-000000000000", ShardPosition.AfterSequence("0"))
    api.getRecords("orders", iterator, 10, None).records.map(_.sequenceNumber) shouldBe Seq("1")
    api.putRecords("orders", IndexedSeq(PutEntry("k", Array[Byte](1), None, 2))) shouldBe
      IndexedSeq(PutStored("shardId-000000000000"))
    new SdkConsumerApi(() => client, connection).streamArn("orders") shouldBe arn
  }

  /** (StreamName, StreamARN) of every request, named by the API call it was. */
  private def named(client: RecordingClient): Seq[(String, Option[String], Option[String])] =
    client.requests.toSeq.map {
      case r: ListShardsRequest => ("ListShards", Option(r.streamName()), Option(r.streamARN()))
      case r: DescribeStreamSummaryRequest => ("DescribeStreamSummary", Option(r.streamName()), Option(r.streamARN()))
      case r: GetShardIteratorRequest => ("GetShardIterator", Option(r.streamName()), Option(r.streamARN()))
      case r: GetRecordsRequest => ("GetRecords", None, Option(r.streamARN()))
      case r: PutRecordsRequest => ("PutRecords", Option(r.streamName()), Option(r.streamARN()))
      case other => fail(s"unexpected request $other")
    }

  test("every request about a stream named by ARN names the ARN and not the name") {
    val client = new RecordingClient
    everyCall(byArn, client)
    val byItsArn = (call: String) => (call, None, Some(arn))
    named(client) shouldBe Seq(
      byItsArn("ListShards"),
      ("ListShards", None, None), // later pages carry only the token, as the API requires
      byItsArn("DescribeStreamSummary"),
      byItsArn("GetShardIterator"),
      byItsArn("GetRecords"),
      byItsArn("PutRecords"),
      byItsArn("DescribeStreamSummary"))
    client.requests.collect { case r: ListShardsRequest => Option(r.nextToken()) } shouldBe Seq(None, Some("page-2"))
  }

  test("a stream named by name is named by name, with no ARN") {
    val client = new RecordingClient
    everyCall(byName, client)
    val byItsName = (call: String) => (call, Some("orders"), None)
    named(client) shouldBe Seq(
      byItsName("ListShards"),
      ("ListShards", None, None),
      byItsName("DescribeStreamSummary"),
      byItsName("GetShardIterator"),
      ("GetRecords", None, None),
      byItsName("PutRecords"),
      byItsName("DescribeStreamSummary"))
  }

  test("a stream named by ARN that does not exist is reported by its ARN") {
    val client = new RecordingClient
    client.missing = true
    val e = intercept[KinesisConnectorException](new SdkKinesisApi(() => client, byArn, () => client).listShards(
        "orders", 10))
    e.getCondition shouldBe "KINESIS_STREAM_NOT_FOUND"
    e.getMessage should include(s"'$arn'")
    val described = intercept[KinesisConnectorException](new SdkConsumerApi(() => client, byArn).streamArn("orders"))
    described.getMessage should include(s"'$arn'")
  }
}
