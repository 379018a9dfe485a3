// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.wire

import java.nio.ByteBuffer
import java.util.concurrent.{ConcurrentLinkedQueue, TimeUnit}

import scala.jdk.CollectionConverters._
import scala.util.Try

import org.scalacheck.{Gen, Prop}
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration
import software.amazon.awssdk.services.kinesis.model.{
  ShardIteratorType, StartingPosition, SubscribeToShardEvent, SubscribeToShardEventStream, SubscribeToShardRequest,
  SubscribeToShardResponseHandler
}

import io.github.sparkkinesis.PropertyChecks
import io.github.sparkkinesis.client.{KinesisRecord, KplCounts, ShardEvent}
import io.github.sparkkinesis.client.sdk.SdkSubscriptionTransport

/**
 * Generated SubscribeToShard event streams read by [[SubscribeEventJson]] (through the
 * interceptor, as the connector reads them) give exactly what the SDK's own unmarshaller gives
 * for the same bytes in the same buffers: the same events and the same failure. The documented
 * contract is that an event the connector cannot read is left to the SDK whole, and a damaged
 * stream goes to the SDK as it came from the damage on; the counts say how many events the
 * connector read itself.
 */
class SubscribeEventPropertySuite extends AnyFunSuite with PropertyChecks with BeforeAndAfterAll {
  private val http = new CannedHttp.Async
  override def afterAll(): Unit = http.kinesis.close()

  private type Aside = Option[(Seq[KinesisRecord], KplCounts)]
  private final case class Read(events: Seq[(SubscribeToShardEvent, Aside)], failure: Option[Throwable])

  private def subscribe(decoded: Option[SubscribeEventDecoding.Decoded]): Read = {
    val events = new ConcurrentLinkedQueue[(SubscribeToShardEvent, Aside)]()
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
    val done = Try(http.kinesis.subscribeToShard(request.build(), handler).get(30, TimeUnit.SECONDS))
    Read(events.asScala.toSeq, done.failed.toOption)
  }

  private def shape(e: ShardEvent) =
    (e.records.map(r =>
        (r.partitionKey, ByteBuffer.wrap(r.data), r.sequenceNumber, r.approximateArrivalMillis,
          r.subSequenceNumber, r.endsKinesisRecord)), e.continuationSequenceNumber, e.millisBehindLatest, e.childShards,
      e.kpl)

  private def failure(t: Throwable): (Class[_], String) = {
    def root(e: Throwable): Throwable = if (e.getCause == null || e.getCause == e) e else root(e.getCause)
    (root(t).getClass, String.valueOf(root(t).getMessage).split("\n at \\[Source").head)
  }

  /** What the SDK alone reads of `stream` in these buffers. */
  private def sdkRead(buffers: Seq[Array[Byte]]): (Seq[ShardEvent], Option[Throwable]) = {
    http.buffers = buffers
    shardEvents(subscribe(None))
  }

  /**
   * The events read, as the transport passes them on: up to the first that cannot become a
   * [[ShardEvent]] (a record lacking a required field), whose failure then ends the stream.
   */
  private def shardEvents(read: Read): (Seq[ShardEvent], Option[Throwable]) = {
    val converted = read.events.iterator.map { case (e, aside) =>
      Try(SdkSubscriptionTransport.toShardEvent(e, aside, None))
    }
    val (good, rest) = converted.toSeq.span(_.isSuccess)
    (good.map(_.get), rest.headOption.map(_.failed.get).orElse(read.failure))
  }

  /**
   * Reads `buffers` through the connector and checks it against what the SDK read (of the same
   * buffers unless given); returns how many events the connector read itself, of how many.
   */
  private def readBoth(buffers: Seq[Array[Byte]],
      expected: Option[(Seq[ShardEvent], Option[Throwable])] = None): String = {
    val (sdkEvents, sdkFailure) = expected.getOrElse(sdkRead(buffers))
    http.buffers = buffers
    // The one place the connector's decoder is entered (its shard hash range: none).
    val decoded = new SubscribeEventDecoding.Decoded(None)
    val ours = subscribe(Some(decoded))
    val (read, oursFailure) = shardEvents(ours)
    val (expectedShape, actualShape) = (sdkEvents.map(shape), read.map(shape))
    def stream = WireGen.printable(new String(buffers.flatten.toArray, java.nio.charset.StandardCharsets.ISO_8859_1))
    if (actualShape != expectedShape) fail(
      s"the events: the SDK read ${WireGen.printable(expectedShape).take(1500)} (failing with " +
        s"${WireGen.printable(sdkFailure.map(failure))}), the connector ${WireGen.printable(actualShape).take(1500)}, " +
        s"in ${stream.take(4000)}")
    if (oursFailure.map(failure) != sdkFailure.map(failure)) fail(
      s"the failure: the SDK's ${WireGen.printable(sdkFailure)}, the connector's ${WireGen.printable(oursFailure)}")
    val readAside = ours.events.filter(_._2.isDefined)
    assert(readAside.forall(_._1.records().isEmpty), "the SDK was not given the records the connector read")
    lastFailure = sdkFailure
    if (sdkFailure.isDefined) "failed on both"
    else if (readAside.size == ours.events.size) "every event read by the connector"
    else "some events left to the SDK"
  }

  /** The SDK's failure in the last case read, for messages. */
  private var lastFailure: Option[Throwable] = None

  /** `bytes` cut at `cuts` (ascending offsets) into buffers. */
  private def split(bytes: Array[Byte], cuts: Seq[Int]): Seq[Array[Byte]] =
    (0 +: cuts :+ bytes.length).sliding(2).map { case Seq(a, b) => bytes.slice(a, b) }.toSeq

  private def inBuffers(streams: Gen[Array[Byte]]): Gen[Seq[Array[Byte]]] = for {
    stream <- streams
    cuts <- Gen.frequency(2 -> Gen.const(Nil), 3 -> WireGen.cuts(stream.length, 8))
  } yield split(stream, cuts)

  private def differential(name: String, buffers: Gen[Seq[Array[Byte]]], cases: Int, seed: Long,
      mustRead: Boolean = false, mustFailWith: Option[String] = None): Unit =
    test(s"$name [$cases cases, seed $seed]") {
      val outcomes = scala.collection.mutable.Map.empty[String, Int].withDefaultValue(0)
      checkProperty(cases, seed) {
        Prop.forAllNoShrink(buffers) { b =>
          val outcome = readBoth(b)
          outcomes(outcome) += 1
          mustFailWith.foreach(pattern =>
            assert(lastFailure.exists(t => String.valueOf(failure(t)._2).matches(pattern)),
              s"the failure: $lastFailure"))
          if (mustRead) assert(outcome == "every event read by the connector",
            s"a stream the connector reads (the SDK failed with ${WireGen.printable(lastFailure.map(failure))})")
          true
        }
      }
      info(outcomes.toSeq.sorted.map { case (o, n) => s"$n $o" }.mkString(", "))
    }

  differential("event streams the SDK reads, in any buffers, are read by the connector itself, as the SDK reads them",
    inBuffers(JsonEvents.stream(JsonEvents.payload())), cases = 150, seed = 21L, mustRead = true)

  differential("events with escaped field names read alike",
    inBuffers(JsonEvents.stream(JsonEvents.event().flatMap(e => Gen.long.map(Json.render(e, _, escapeNames = true))))),
    cases = 60, seed = 22L)

  differential("events with headers of every type read alike",
    inBuffers(JsonEvents.stream(JsonEvents.payload(), anyHeaders = true)), cases = 60, seed = 27L)

  differential("events holding a record without its partition key or sequence number fail alike, naming the field",
    inBuffers(JsonEvents.stream(JsonEvents.payload(JsonEvents.event(Gen.choose(0, 5), incomplete = true)))),
    cases = 100, seed = 28L,
    mustFailWith = Some("(?s)Record \\d+ of the answer.* has no (PartitionKey|SequenceNumber),.*"))

  differential("records of up to 10 MiB read alike",
    inBuffers(JsonEvents.stream(JsonEvents.payload(JsonEvents.event(Gen.const(1),
            Gen.oneOf(WireGen.sized(1 << 20, 2 << 20), WireGen.sized(10 << 20, 10 << 20)))), Gen.const(1))),
    cases = 3, seed = 23L, mustRead = true)

  /** An event's JSON with one character taken out, put in, or changed. */
  private val malformedJson: Gen[String] =
    for {
      json <- JsonEvents.payload(JsonEvents.event(Gen.choose(0, 3)))
      at <- Gen.choose(0, json.length - 1)
      c <- Gen.oneOf(Gen.oneOf('"', '\\', ',', ':', '{', '}', '[', ']', '0', '-', '.', 'e', '+', 'n', ' ', '\u0001',
          '\u00e9'),
        Gen.asciiPrintableChar)
      how <- Gen.oneOf("remove", "insert", "replace")
    } yield how match {
      case "remove" => json.patch(at, "", 1)
      case "insert" => json.patch(at, c.toString, 0)
      case _ => json.patch(at, c.toString, 1)
    }

  differential("events whose JSON is malformed read alike, or fail alike", inBuffers(JsonEvents.stream(malformedJson)),
    cases = 200, seed = 24L)

  /** A stream with one byte changed (frame, checksum, header or payload), or cut short. */
  private val damaged: Gen[Seq[Array[Byte]]] = for {
    stream <- JsonEvents.stream(JsonEvents.payload(JsonEvents.event(Gen.choose(0, 3))))
    at <- Gen.choose(JsonEvents.initialResponse.length, stream.length - 1)
    value <- Gen.choose(0, 255)
    cut <- Gen.oneOf(true, false)
    cuts <- WireGen.cuts(stream.length, 4)
  } yield split(if (cut) stream.take(at) else stream.updated(at, value.toByte), cuts.filter(_ <= at))

  differential("damaged streams fail alike, after the same events", damaged, cases = 200, seed = 25L)

  test("a stream split at every byte boundary reads as the SDK reads it whole [2 streams, seed 26]") {
    var splits = 0
    checkProperty(2, 26L) {
      Prop.forAllNoShrink(JsonEvents.stream(JsonEvents.payload(JsonEvents.event(Gen.choose(1, 2),
              WireGen.sized(0, 40))), Gen.const(2))) { stream =>
        val whole = sdkRead(Seq(stream))
        (1 until stream.length).foreach { at =>
          assert(readBoth(split(stream, Seq(at)), Some(whole)) == "every event read by the connector", s"split at $at")
          splits += 1
        }
        true
      }
    }
    info(s"$splits splits read")
  }

  // ---- cases the properties found, kept by name ----

  private def example(name: String, expected: String)(payload: String): Unit =
    test(s"example: $name")(assert(readBoth(Seq(JsonEvents.initialResponse,
          EventStream.event("SubscribeToShardEvent", payload))) == expected))

  private def eventWith(record: String) = s"""{"Records":[$record],"MillisBehindLatest":0}"""

  example("a partition key with a raw control character, which JSON forbids, fails as the SDK fails",
    "failed on both")(eventWith("{\"Data\":\"AQ==\",\"PartitionKey\":\"a\u0001b\"}"))
  example("a timestamp longer than the SDK reads (21 characters) fails as the SDK fails", "failed on both")(
    eventWith("{\"Data\":\"AQ==\",\"ApproximateArrivalTimestamp\":1700000000.12345678901}"))
  example("an unknown field with a malformed escape, which the SDK's parser refuses, fails as the SDK fails",
    "failed on both")(eventWith("{\"Data\":\"AQ==\",\"Other\":\"\\u12,\"}"))
  example("an unknown field holding 01, a number JSON forbids, fails as the SDK fails", "failed on both")(
    eventWith("{\"Data\":\"AQ==\",\"Other\":01}"))
  example("an unknown field holding 1., a number JSON forbids, fails as the SDK fails", "failed on both")(
    eventWith("{\"Data\":\"AQ==\",\"Other\":1.}"))
  example("an arrival time of 1., a number JSON forbids, fails as the SDK fails", "failed on both")(
    eventWith("{\"Data\":\"AQ==\",\"ApproximateArrivalTimestamp\":1.}"))
  example("an arrival time of 017, a number JSON forbids, fails as the SDK fails", "failed on both")(
    eventWith("{\"Data\":\"AQ==\",\"ApproximateArrivalTimestamp\":017}"))
  example("an unknown field holding a lone minus sign fails as the SDK fails", "failed on both")(
    eventWith("{\"Data\":\"AQ==\",\"Other\":-}"))
}
