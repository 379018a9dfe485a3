// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.wire

import java.util.Collections

import scala.util.Try

import org.scalacheck.{Gen, Prop}
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration
import software.amazon.awssdk.services.kinesis.model.{GetRecordsRequest, GetRecordsResponse, Record}

import io.github.sparkkinesis.PropertyChecks
import io.github.sparkkinesis.client.{KinesisRecord, KplCounts}
import io.github.sparkkinesis.client.sdk.SdkRecords

/**
 * Generated GetRecords answers read by [[GetRecordsCbor]] (through the interceptor, as the
 * connector reads them) give exactly what the SDK's own unmarshaller gives for the same bytes:
 * the same records, the same rest of the answer, or the same failure. The documented contract
 * is that an answer the connector cannot read is left to the SDK whole, so "the same" covers
 * answers either reads, and the counts say how many the connector read itself.
 */
class GetRecordsPropertySuite extends AnyFunSuite with PropertyChecks with BeforeAndAfterAll {
  private val http = new CannedHttp.Sync
  /** The same decoder on pieces of 16 bytes, so that every kind of item also lies across two pieces. */
  private val smallPieces = new CannedHttp.Sync(new GetRecordsDecoding.Interceptor(new PiecePool(16, 1 << 20)))
  override def afterAll(): Unit = Seq(http, smallPieces).foreach(_.kinesis.close())

  private def request(decoded: Option[GetRecordsDecoding.Decoded]) = {
    val b = GetRecordsRequest.builder().shardIterator("it")
    decoded.foreach(d =>
      b.overrideConfiguration((o: AwsRequestOverrideConfiguration.Builder) =>
        o.putExecutionAttribute(GetRecordsDecoding.Attribute, d)))
    b.build()
  }

  private def shape(records: Seq[KinesisRecord]) = records.map(r =>
    (r.partitionKey, java.nio.ByteBuffer.wrap(r.data), r.sequenceNumber, r.approximateArrivalMillis,
      r.subSequenceNumber,
      r.endsKinesisRecord))

  private def withoutRecords(r: GetRecordsResponse) = r.toBuilder.records(Collections.emptyList[Record]()).build()

  /** A failure's kind and message (without where in the body it was: the SDK reads a shorter body after the connector). */
  private def failure(t: Throwable): (Class[_], Class[_], String) = {
    def root(e: Throwable): Throwable = if (e.getCause == null || e.getCause == e) e else root(e.getCause)
    (t.getClass, root(t).getClass, String.valueOf(root(t).getMessage).split("\n at \\[Source").head)
  }

  /** Reads `body` both ways and checks they agree, with the connector's pieces and with small ones; returns how its read ended. */
  private def readBoth(body: Array[Byte], declareLength: Boolean = true): String = {
    val outcome = readBoth(http, body, declareLength)
    val inSmallPieces = readBoth(smallPieces, body, declareLength)
    assert(inSmallPieces == outcome, "read in pieces of 16 bytes")
    outcome
  }

  private def readBoth(http: CannedHttp.Sync, body: Array[Byte], declareLength: Boolean): String = {
    http.body = body
    http.declareLength = declareLength
    val sdk = Try(http.kinesis.getRecords(request(None)))
    // The one place the connector's decoder is entered (its shard hash range: none).
    val decoded = new GetRecordsDecoding.Decoded(None)
    val ours = Try(http.kinesis.getRecords(request(Some(decoded))))
    // Another answer read into the pieces this one gave back: nothing read from them may change.
    http.body = Array.fill(body.length)(0xff.toByte)
    Try(http.kinesis.getRecords(request(Some(new GetRecordsDecoding.Decoded(None)))))
    (sdk.toEither, ours.toEither) match {
      case (Right(expected), Right(actual)) =>
        if (withoutRecords(actual) != withoutRecords(expected)) fail(
          s"the rest of the answer: ${WireGen.printable(withoutRecords(expected))}")
        Try(SdkRecords.toKinesisRecords(expected.records(), None)).toEither match {
          case Left(lacking) =>
            // A record without a partition key or sequence number: left to the SDK, whose read fails alike.
            assert(decoded.records.isEmpty, "an answer with a record lacking a required field is left to the SDK")
            val ours = Try(SdkRecords.toKinesisRecords(actual.records(), None))
            assert(ours.failed.toOption.map(_.getMessage) == Some(lacking.getMessage), "the failure")
            assert(
              lacking.getMessage.matches("(?s)Record \\d+ of the answer.* has no (PartitionKey|SequenceNumber),.*"),
              lacking.getMessage)
            "a record lacking a field, failed on both"
          case Right(expectedRecords) => readAlike(decoded, actual, expected, expectedRecords)
        }
      case (Left(expected), Left(actual)) =>
        if (failure(actual) != failure(expected)) fail(
          s"the failure: the SDK's ${WireGen.printable(failure(expected))}, the connector's ${WireGen.printable(failure(actual))}")
        "failed on both"
      case (expected, actual) =>
        fail(s"the SDK read ${WireGen.printable(expected)}, the connector ${WireGen.printable(actual)}")
    }
  }

  private def readAlike(decoded: GetRecordsDecoding.Decoded, actual: GetRecordsResponse, expected: GetRecordsResponse,
      expectedRecords: (Seq[KinesisRecord], KplCounts)): String =
    decoded.records match {
      case Some((records, kpl)) =>
        assert(!actual.hasRecords || actual.records().isEmpty, "the SDK was not given the records read")
        if (shape(records) != shape(expectedRecords._1)) fail(s"the records: the SDK read " +
          s"${WireGen.printable(shape(expectedRecords._1))}, the connector ${WireGen.printable(shape(records))}")
        assert(kpl == expectedRecords._2, "the KPL counts")
        "read by the connector"
      case None =>
        if (actual.records() != expected.records()) fail("the records the SDK read differ")
        "left to the SDK"
    }

  private def differential(name: String, answers: Gen[Array[Byte]], cases: Int, seed: Long,
      mustRead: Boolean = false, declareLength: Boolean = true, mustEnd: Option[String] = None): Unit =
    test(s"$name [$cases cases, seed $seed]") {
      val outcomes = scala.collection.mutable.Map.empty[String, Int].withDefaultValue(0)
      checkProperty(cases, seed) {
        Prop.forAllNoShrink(answers) { body =>
          val outcome = readBoth(body, declareLength)
          outcomes(outcome) += 1
          if (mustRead) assert(outcome == "read by the connector", "an answer of a form the connector reads")
          mustEnd.foreach(expected => assert(outcome == expected))
          true
        }
      }
      info(outcomes.toSeq.sorted.map { case (o, n) => s"$n $o" }.mkString(", "))
    }

  private def encoded(answers: Gen[Cbor]): Gen[Array[Byte]] = for {
    answer <- answers
    widen <- Gen.frequency(2 -> Gen.const(0L), 1 -> Gen.long)
  } yield Cbor.encode(answer, widen)

  import CborAnswers.{Any, SdkReadable}

  differential("answers in every form the SDK reads are read by the connector itself, as the SDK reads them",
    encoded(CborAnswers.answer(SdkReadable)), cases = 300, seed = 11L, mustRead = true)

  differential("answers in any form the wire format allows read alike, or fail alike",
    encoded(CborAnswers.answer(Any)), cases = 300, seed = 12L)

  differential("answers sent without a declared length read alike",
    encoded(CborAnswers.answer(SdkReadable)), cases = 100, seed = 13L, mustRead = true, declareLength = false)

  differential("records of up to 10 MiB read alike",
    encoded(CborAnswers.answer(SdkReadable, count = Gen.const(1),
        data = Gen.oneOf(WireGen.sized(1 << 20, 2 << 20), WireGen.sized(10 << 20, 10 << 20)))),
    cases = 3, seed = 14L, mustRead = true)

  differential("answers holding a record without its partition key or sequence number fail alike, naming the field",
    encoded(CborAnswers.answer(SdkReadable, count = Gen.choose(0, 6), incomplete = true)), cases = 200, seed = 17L,
    mustEnd = Some("a record lacking a field, failed on both"))

  /** An answer cut short, with a byte changed, or with one inserted. */
  private val damaged: Gen[Array[Byte]] =
    for {
      body <- encoded(CborAnswers.answer(SdkReadable, count = Gen.choose(1, 4)))
      at <- Gen.choose(0, body.length - 1)
      value <- Gen.choose(0, 255)
      how <- Gen.oneOf("cut", "change", "insert")
    } yield how match {
      case "cut" => body.take(at)
      case "change" => body.updated(at, value.toByte)
      case _ => (body.take(at) :+ value.toByte) ++ body.drop(at)
    }

  differential("damaged answers read alike, or fail alike", damaged, cases = 300, seed = 15L)

  /** Partition keys and sequence numbers of bytes that need not be UTF-8 (stray continuation bytes, overlong forms, surrogates). */
  private val badText: Gen[Array[Byte]] = for {
    key <- Gen.listOf(Gen.oneOf(Gen.choose(0, 255).map(Seq(_)),
        Gen.oneOf(Seq(0xc0, 0x80), Seq(0xed, 0xa0, 0x80), Seq(0xf4, 0x90, 0x80, 0x80), Seq(0xe2, 0x82), Seq(0x61))))
      .map(_.flatten.map(_.toByte).toArray)
    where <- Gen.oneOf("PartitionKey", "SequenceNumber", "unknown field's name", "unknown field's value")
  } yield {
    val field = where match {
      case "unknown field's name" => (Cbor.Text(key), Cbor.text("v"))
      case "unknown field's value" => (Cbor.text("Other"), Cbor.Text(key))
      case known => (Cbor.text(known), Cbor.Text(key))
    }
    val others = required(Seq(where -> Cbor.Null)).filterNot(_._1 == where).map { case (k, v) => (Cbor.text(k), v) }
    Cbor.encode(Cbor.map("Records" -> Cbor.Items(Seq(Cbor.Fields(Seq(Cbor.text("Data") -> Cbor.Bytes(Array[Byte](1)),
              field) ++ others))), "NextShardIterator" -> Cbor.text("n")))
  }

  differential("text that is not UTF-8 reads alike", badText, cases = 200, seed = 16L)

  // ---- cases the properties found, kept by name (each was read differently before its fix) ----

  /** An answer of one record with these fields, and a partition key and sequence number unless given. */
  private def answerWith(record: (String, Cbor)*): Array[Byte] =
    Cbor.encode(Cbor.map("Records" -> Cbor.Items(Seq(Cbor.map(required(record): _*))),
        "NextShardIterator" -> Cbor.text("n")))

  private def required(record: Seq[(String, Cbor)]): Seq[(String, Cbor)] =
    Seq("PartitionKey" -> Cbor.text("k"), "SequenceNumber" -> Cbor.text("1"))
      .filterNot(f => record.exists(_._1 == f._1)) ++ record

  private def example(name: String, expected: String)(body: Array[Byte]): Unit =
    test(s"example: $name")(assert(readBoth(body) == expected))

  example("an arrival time of 1e19 ms, beyond a long, fails as the SDK fails", "failed on both")(
    answerWith("Data" -> Cbor.Bytes(Array[Byte](1)), "ApproximateArrivalTimestamp" -> Cbor.Double64(1e19)))
  example("an infinite half-float arrival time fails as the SDK fails", "failed on both")(
    answerWith("Data" -> Cbor.Bytes(Array[Byte](1)), "ApproximateArrivalTimestamp" -> Cbor.Half(0xfc00)))
  example("an arrival time of exactly 2^63 ms as a double is read as the largest long", "read by the connector")(
    answerWith("Data" -> Cbor.Bytes(Array[Byte](1)),
      "ApproximateArrivalTimestamp" -> Cbor.Double64(9.223372036854775807e18)))
  example("a tag beyond an int, which the SDK's parser refuses, is left to it", "failed on both")(
    answerWith("Data" -> Cbor.Tagged(1L << 40, Cbor.Bytes(Array[Byte](1)))))
  example("a byte string tagged as a bignum, a number to the SDK's parser, is left to it", "failed on both")(
    answerWith("Data" -> Cbor.Tagged(2, Cbor.Bytes(Array[Byte](1)))))
  example("a partition key that is not UTF-8, which the SDK's parser refuses, is left to it", "failed on both")(
    answerWith("Data" -> Cbor.Bytes(Array[Byte](1)),
      "PartitionKey" -> Cbor.Text(Array(0x61, 0xc3, 0x71).map(_.toByte))))
  example("data as text that is not base64 is left to the SDK, which fails on it", "failed on both")(
    answerWith("Data" -> Cbor.text("AQ?=")))
  example("an indefinite byte string with a tagged chunk, which the SDK's parser refuses, is left to it",
    "failed on both")(answerWith("Data" -> Cbor.Bytes(Array[Byte](1, 2), Some(Seq(1))),
      "Other" -> Cbor.text("x")) match {
      case body => body.patch(body.indexOfSlice(Array(0x5f, 0x41).map(_.toByte)) + 1, Array(0xc1.toByte), 0)
    })
  example("an unknown field holding a map with a float key, which the SDK's parser refuses, is left to it",
    "failed on both")(answerWith("Data" -> Cbor.Bytes(Array[Byte](1)),
      "Other" -> Cbor.Fields(Seq(Cbor.Double64(1.5) -> Cbor.Unsigned(1)))))
  example("a nested map's key that is not UTF-8, which the SDK's parser refuses, is left to it", "failed on both")(
    answerWith("Data" -> Cbor.Bytes(Array[Byte](1)),
      "Other" -> Cbor.Fields(Seq(Cbor.Text(Array(0xf9.toByte)) -> Cbor.Unsigned(1)))))
  example("records whose data fill whole pieces keep their data after the pieces are read into again",
    "read by the connector")(Cbor.encode(Cbor.map(
        "Records" -> Cbor.Items((1 to 17).map(i =>
            // Keys of 1 to 17 bytes put the 16 bytes of data at every offset of a piece of 16, 0 included.
            Cbor.map("PartitionKey" -> Cbor.text("k" * i), "SequenceNumber" -> Cbor.text(i.toString),
              "Data" -> Cbor.Bytes(Array.tabulate(16)(j => (i + j).toByte))))),
        "NextShardIterator" -> Cbor.text("n"))))
  example("an answer with two Records fields reads as the SDK reads it", "left to the SDK")(Cbor.encode(Cbor.map(
        "Records" -> Cbor.Items(Seq(Cbor.map(required(Seq("Data" -> Cbor.Bytes(Array[Byte](1)))): _*))),
        "Records" -> Cbor.Items(Seq(Cbor.map(required(Seq("Data" -> Cbor.Bytes(Array[Byte](2)))): _*))))))
  example("a record with two Data fields reads as the SDK reads it", "read by the connector")(
    answerWith("Data" -> Cbor.Bytes(Array[Byte](1)), "PartitionKey" -> Cbor.text("a"),
      "Data" -> Cbor.Bytes(Array[Byte](2))))
  example("a record without data reads as empty data on both paths (the SDK's path threw)", "read by the connector")(
    answerWith("PartitionKey" -> Cbor.text("k"), "SequenceNumber" -> Cbor.text("1")))
  example("a record with null data reads as empty data on both paths", "read by the connector")(
    answerWith("Data" -> Cbor.Null, "PartitionKey" -> Cbor.text("k")))
}
