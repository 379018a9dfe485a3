// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.wire

import java.io.ByteArrayOutputStream
import java.net.{InetSocketAddress, URI}
import java.nio.charset.StandardCharsets.UTF_8

import com.sun.net.httpserver.HttpServer
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import software.amazon.awssdk.auth.credentials.{AwsBasicCredentials, StaticCredentialsProvider}
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration
import software.amazon.awssdk.core.exception.SdkClientException
import software.amazon.awssdk.regions.Region
import software.amazon.awssdk.services.kinesis.KinesisClient
import software.amazon.awssdk.services.kinesis.model.{GetRecordsRequest, ProvisionedThroughputExceededException}
import software.amazon.awssdk.thirdparty.jackson.dataformat.cbor.{CBORFactory, CBORGenerator}

import io.github.sparkkinesis.errors.KinesisConnectorException
import io.github.sparkkinesis.kpl.AggregateBuilder
import io.github.sparkkinesis.client.{ConnectionConfig, CredentialsConfig, KinesisRecord}
import io.github.sparkkinesis.client.sdk.{AwsClientFactory, SdkKinesisApi, SdkRecords}

/**
 * GetRecords answers read by [[GetRecordsCbor]] give exactly what the SDK's own unmarshaller
 * gives for the same bytes: each answer is served by a local HTTP endpoint and read twice, by
 * the connector's client and by a plain SDK client.
 */
class GetRecordsDecodingSuite extends AnyFunSuite with BeforeAndAfterAll {
  @volatile private var answer: (Int, String, Array[Byte]) = (200, "application/x-amz-cbor-1.1", Array.emptyByteArray)
  /** Whether the answer is sent in chunks, with no Content-Length. */
  @volatile private var chunked = false
  private val server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0)
  server.createContext("/",
    exchange => {
      exchange.getRequestBody.readAllBytes()
      val (status, contentType, body) = answer
      exchange.getResponseHeaders.add("Content-Type", contentType)
      exchange.sendResponseHeaders(status, if (chunked) 0L else body.length.toLong)
      exchange.getResponseBody.write(body)
      exchange.close()
    })
  private lazy val endpoint = s"http://127.0.0.1:${server.getAddress.getPort}"
  private lazy val connection =
    ConnectionConfig("us-east-1", Some(endpoint), CredentialsConfig.StaticKeys("test", "test", None))
  private lazy val ours = AwsClientFactory.syncKinesis(connection)
  private lazy val plainSdk = KinesisClient.builder().region(Region.US_EAST_1).endpointOverride(URI.create(endpoint))
    .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test"))).build()

  override def beforeAll(): Unit = server.start()
  override def afterAll(): Unit = { ours.close(); plainSdk.close(); server.stop(0) }

  private def cbor(write: CBORGenerator => Unit): Array[Byte] = {
    val out = new ByteArrayOutputStream()
    val g = new CBORFactory().createGenerator(out)
    write(g)
    g.close()
    out.toByteArray
  }

  private def field(g: CBORGenerator, name: String, value: String): Unit = {
    g.writeFieldName(name); g.writeString(value)
  }

  private def record(
      g: CBORGenerator, key: String, data: Array[Byte], seq: String, arrival: CBORGenerator => Unit): Unit = {
    g.writeStartObject()
    field(g, "SequenceNumber", seq)
    g.writeFieldName("ApproximateArrivalTimestamp"); arrival(g)
    g.writeFieldName("Data"); g.writeBinary(data)
    field(g, "PartitionKey", key)
    field(g, "EncryptionType", "NONE")
    g.writeEndObject()
  }

  private def answerOf(records: CBORGenerator => Unit, childShards: Boolean = false): Array[Byte] = cbor { g =>
    g.writeStartObject()
    g.writeFieldName("Records"); g.writeStartArray(); records(g); g.writeEndArray()
    field(g, "NextShardIterator", "next-iterator")
    g.writeFieldName("MillisBehindLatest"); g.writeNumber(1234L)
    if (childShards) {
      g.writeFieldName("ChildShards"); g.writeStartArray(); g.writeStartObject()
      field(g, "ShardId", "shardId-000000000002")
      g.writeFieldName("ParentShards"); g.writeStartArray(); g.writeString("shardId-000000000000"); g.writeEndArray()
      g.writeFieldName("HashKeyRange"); g.writeStartObject()
      field(g, "StartingHashKey", "0"); field(g, "EndingHashKey", "100"); g.writeEndObject()
      g.writeEndObject(); g.writeEndArray()
    }
    g.writeEndObject()
  }

  private def request(decoded: Option[GetRecordsDecoding.Decoded]) = {
    val b = GetRecordsRequest.builder().shardIterator("it").limit(100)
    decoded.foreach(d =>
      b.overrideConfiguration((o: AwsRequestOverrideConfiguration.Builder) =>
        o.putExecutionAttribute(GetRecordsDecoding.Attribute, d)))
    b.build()
  }

  private def shape(records: Seq[KinesisRecord]) =
    records.map(r => (r.partitionKey, r.data.toSeq, r.sequenceNumber, r.approximateArrivalMillis, r.subSequenceNumber))

  /** The connector's reading of the current answer, checked against the SDK's, and whether the connector read the records itself. */
  private def readBoth(): (Seq[KinesisRecord], Boolean) = {
    val sdk = plainSdk.getRecords(request(None))
    val (expected, expectedKpl) = SdkRecords.toKinesisRecords(sdk.records(), None)
    val batch = new SdkKinesisApi(() => ours, connection, () => ours).getRecords("s", "it", 100, None)
    assert(shape(batch.records) == shape(expected))
    assert(batch.kpl == expectedKpl)
    assert(batch.nextIterator == Option(sdk.nextShardIterator()))
    assert(batch.millisBehindLatest == Option(sdk.millisBehindLatest()).fold(0L)(_.longValue))
    // recordDecoder sdk: the SDK reads the records, with the same result.
    val viaSdk =
      new SdkKinesisApi(() => ours, connection.copy(sdkDecoding = true), () => ours).getRecords("s", "it", 100, None)
    assert(shape(viaSdk.records) == shape(expected))
    assert(viaSdk.kpl == expectedKpl)
    val decoded = new GetRecordsDecoding.Decoded(None)
    val response = ours.getRecords(request(Some(decoded)))
    assert(response.childShards() == sdk.childShards(), "the rest of the answer reaches the SDK")
    (batch.records, decoded.records.isDefined)
  }

  private val millis = (g: CBORGenerator) => g.writeNumber(1700000000123L)

  test("with recordDecoder sdk no answer is read by the connector: its requests do not ask for it") {
    def asks(
        sdkDecoding: Boolean) = new SdkKinesisApi(() => ours, connection.copy(sdkDecoding = sdkDecoding), () => ours)
      .recordsRequest("s", "it", 100, new GetRecordsDecoding.Decoded(None))
      .overrideConfiguration().get().executionAttributes().getAttribute(GetRecordsDecoding.Attribute) != null
    assert(asks(sdkDecoding = false))
    assert(!asks(sdkDecoding = true))
  }

  test("plain records, their data, keys, sequence numbers and arrival times") {
    val data = (0 until 50).map(i => s"record-$i-${"x" * (i * 37)}".getBytes(UTF_8))
    answer = (200, "application/x-amz-cbor-1.1",
      answerOf(g => data.zipWithIndex.foreach { case (d, i) => record(g, s"key-$i", d, s"4959${i}000", millis) }))
    val (records, read) = readBoth()
    assert(read, "the connector read the records itself")
    assert(records.map(r => new String(r.data, UTF_8)) == data.map(new String(_, UTF_8)))
    assert(records.head.approximateArrivalMillis == 1700000000123L)
  }

  test("an answer sent in chunks, with no declared length, reads the same") {
    val data = (0 until 200).map(i => s"chunked-$i-${"y" * (i * 11)}".getBytes(UTF_8))
    answer = (200, "application/x-amz-cbor-1.1",
      answerOf(g => data.zipWithIndex.foreach { case (d, i) => record(g, s"key-$i", d, s"4960${i}000", millis) }))
    chunked = true
    try {
      val (records, read) = readBoth()
      assert(read, "the connector read the records itself")
      assert(records.map(r => new String(r.data, UTF_8)) == data.map(new String(_, UTF_8)))
    } finally chunked = false
  }

  test("arrival times as single and double floats, negative, and behind a tag") {
    answer = (200, "application/x-amz-cbor-1.1",
      answerOf { g =>
        record(g, "a", Array[Byte](1), "1", _.writeNumber(1.7000000001239e12))
        record(g, "b", Array[Byte](2), "2", _.writeNumber(2.5f))
        record(g, "c", Array[Byte](3), "3", { g => g.writeTag(1); g.writeNumber(1700000000L) })
        record(g, "d", Array[Byte](4), "4", _.writeNumber(-5L))
      })
    assert(readBoth()._2)
  }

  test("KPL aggregates are split as the SDK path splits them") {
    val aggregate = new AggregateBuilder()
    (0 until 5).foreach(i => aggregate.add(s"user-$i", None, s"payload-$i".getBytes(UTF_8)))
    answer = (200, "application/x-amz-cbor-1.1",
      answerOf { g =>
        record(g, "k", aggregate.result(), "777", millis)
        record(g, "plain", "plain".getBytes(UTF_8), "778", millis)
      })
    val (records, read) = readBoth()
    assert(read)
    assert(records.map(_.partitionKey) == (0 until 5).map(i => s"user-$i") :+ "plain")
  }

  test("child shards, unknown fields, nulls and an empty answer reach the SDK intact") {
    answer = (200, "application/x-amz-cbor-1.1",
      answerOf(g => {
          g.writeStartObject()
          field(g, "SequenceNumber", "9")
          g.writeFieldName("Data"); g.writeBinary(Array[Byte](9, 9))
          field(g, "PartitionKey", "p")
          g.writeFieldName("SomethingNew"); g.writeStartObject(); g.writeFieldName("x")
          g.writeStartArray(); g.writeNumber(1); g.writeBoolean(true); g.writeNull(); g.writeEndArray();
          g.writeEndObject()
          g.writeFieldName("EncryptionType"); g.writeNull()
          g.writeEndObject()
        }, childShards = true))
    assert(readBoth()._2)
    answer = (200, "application/x-amz-cbor-1.1", answerOf(_ => (), childShards = true))
    assert(readBoth() == ((Seq.empty, true)))
  }

  test("indefinite-length maps, arrays and chunked strings") {
    def head(major: Int, n: Int) = Array((major << 5 | n).toByte)
    def text(s: String) = head(3, s.length) ++ s.getBytes(UTF_8)
    val body = Array(0xbf.toByte) ++ text("Records") ++ Array(0x9f.toByte) ++
      Array(0xbf.toByte) ++ text("Data") ++ Array(0x5f.toByte) ++ head(2, 2) ++ Array[Byte](1, 2) ++
      head(2, 1) ++ Array[Byte](3) ++ Array(0xff.toByte) ++
      text("PartitionKey") ++ Array(0x7f.toByte) ++ text("pa") ++ text("rt") ++ Array(0xff.toByte) ++
      text("SequenceNumber") ++ text("42") ++ Array(0xff.toByte) ++ Array(0xff.toByte) ++
      text("NextShardIterator") ++ text("n") ++ Array(0xff.toByte)
    answer = (200, "application/x-amz-cbor-1.1", body)
    val (records, read) = readBoth()
    assert(read)
    assert(shape(records) == Seq(("part", Seq[Byte](1, 2, 3), "42", 0L, 0L)))
  }

  test("an answer it cannot read is left to the SDK, which fails on it as before") {
    val whole = answerOf(g => record(g, "k", Array[Byte](1), "1", millis))
    answer = (200, "application/x-amz-cbor-1.1", whole.take(whole.length / 2))
    val sdk = intercept[SdkClientException](plainSdk.getRecords(request(None)))
    val decoded = new GetRecordsDecoding.Decoded(None)
    val connector = intercept[SdkClientException](ours.getRecords(request(Some(decoded))))
    assert(decoded.records.isEmpty)
    // The SDK's own failure to read the answer, but for how often each client tried.
    def withoutAttempts(e: Throwable) = e.getMessage.replaceAll(" \\(SDK Attempt Count: \\d+\\)", "")
    assert(connector.getClass == sdk.getClass)
    assert(withoutAttempts(connector) == withoutAttempts(sdk))
    assert(withoutAttempts(connector).startsWith("Unable to unmarshall response"), connector.getMessage)
  }

  test("a record without its sequence number or partition key fails the read with an error naming the field") {
    def recordWith(fields: (String, Option[String])*): CBORGenerator => Unit = { g =>
      g.writeStartObject()
      g.writeFieldName("Data"); g.writeBinary(Array[Byte](1))
      fields.foreach { case (name, value) => g.writeFieldName(name); value.fold(g.writeNull())(g.writeString) }
      g.writeEndObject()
    }
    val complete = recordWith("PartitionKey" -> Some("k"), "SequenceNumber" -> Some("41"))
    Seq(
      ("SequenceNumber", recordWith("PartitionKey" -> Some("k"))),
      ("SequenceNumber", recordWith("PartitionKey" -> Some("k"), "SequenceNumber" -> None)),
      ("PartitionKey", recordWith("SequenceNumber" -> Some("42"))),
      ("PartitionKey", recordWith("PartitionKey" -> None, "SequenceNumber" -> Some("42")))).foreach {
      case (missing, incomplete) =>
        answer = (200, "application/x-amz-cbor-1.1", answerOf { g => complete(g); incomplete(g) })
        Seq(false, true).foreach { sdkDecoding =>
          val api = new SdkKinesisApi(() => ours, connection.copy(sdkDecoding = sdkDecoding), () => ours)
          val e = intercept[KinesisConnectorException](api.getRecords("s", "it", 100, None))
          assert(e.getCondition == "KINESIS_API_FAILED", e.getMessage)
          assert(e.getMessage.contains(s"Record 2 of the answer") && e.getMessage.contains(s"has no $missing"),
            s"with recordDecoder ${if (sdkDecoding) "sdk" else "connector"}: ${e.getMessage}")
        }
    }
  }

  test("errors are the SDK's: throttling still surfaces as the SDK's exception") {
    answer = (400, "application/x-amz-cbor-1.1",
      cbor { g =>
        g.writeStartObject()
        field(g, "__type", "ProvisionedThroughputExceededException")
        field(g, "message", "Rate exceeded for shard")
        g.writeEndObject()
      })
    val decoded = new GetRecordsDecoding.Decoded(None)
    intercept[ProvisionedThroughputExceededException](ours.getRecords(request(Some(decoded))))
    assert(decoded.records.isEmpty)
  }
}
