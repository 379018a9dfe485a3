package io.github.sparkkinesis.client

import java.util.Collections

import scala.util.Try

import org.scalacheck.{Gen, Prop}
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration
import software.amazon.awssdk.services.kinesis.model.{GetRecordsRequest, GetRecordsResponse, Record}

import io.github.sparkkinesis.PropertyChecks

/**
 * Generated GetRecords answers read by [[GetRecordsCbor]] (through the interceptor, as the
 * connector reads them) give exactly what the SDK's own unmarshaller gives for the same bytes:
 * the same records, the same rest of the answer, or the same failure. The documented contract
 * is that an answer the connector cannot read is left to the SDK whole, so "the same" covers
 * answers either reads, and the counts say how many the connector read itself.
 */
class GetRecordsPropertySuite extends AnyFunSuite with PropertyChecks with BeforeAndAfterAll {
  private val http = new CannedHttp.Sync
  override def afterAll(): Unit = http.kinesis.close()

  private def request(decoded: Option[GetRecordsDecoding.Decoded]) = {
    val b = GetRecordsRequest.builder().shardIterator("it")
    decoded.foreach(d =>
      b.overrideConfiguration((o: AwsRequestOverrideConfiguration.Builder) =>
        o.putExecutionAttribute(GetRecordsDecoding.Attribute, d)))
    b.build()
  }

  private def shape(records: Seq[KinesisRecord]) = records.map(r =>
    (r.partitionKey, r.data.toSeq, r.sequenceNumber, r.approximateArrivalMillis, r.subSequenceNumber,
      r.endsKinesisRecord))

  private def withoutRecords(r: GetRecordsResponse) = r.toBuilder.records(Collections.emptyList[Record]()).build()

  private def failure(t: Throwable): (Class[_], Class[_], String) = {
    def root(e: Throwable): Throwable = if (e.getCause == null || e.getCause == e) e else root(e.getCause)
    (t.getClass, root(t).getClass, root(t).getMessage)
  }

  /** Reads `body` both ways and checks they agree; returns how the connector's read ended. */
  private def readBoth(body: Array[Byte], declareLength: Boolean = true): String = {
    http.body = body
    http.declareLength = declareLength
    val sdk = Try(http.kinesis.getRecords(request(None)))
    // The one place the connector's decoder is entered (its shard hash range: none).
    val decoded = new GetRecordsDecoding.Decoded(None)
    val ours = Try(http.kinesis.getRecords(request(Some(decoded))))
    (sdk.toEither, ours.toEither) match {
      case (Right(expected), Right(actual)) =>
        assert(withoutRecords(actual) == withoutRecords(expected), "the rest of the answer")
        val expectedRecords = SdkRecords.toKinesisRecords(expected.records(), None)
        decoded.records match {
          case Some((records, kpl)) =>
            assert(!actual.hasRecords || actual.records().isEmpty, "the SDK was not given the records read")
            assert(shape(records) == shape(expectedRecords._1), "the records")
            assert(kpl == expectedRecords._2, "the KPL counts")
            "read by the connector"
          case None =>
            assert(actual.records() == expected.records())
            "left to the SDK"
        }
      case (Left(expected), Left(actual)) =>
        assert(failure(actual) == failure(expected), "the failure")
        "failed on both"
      case (expected, actual) => fail(s"the SDK read $expected, the connector $actual")
    }
  }

  private def differential(name: String, answers: Gen[Array[Byte]], cases: Int, seed: Long,
      mustRead: Boolean = false): Unit =
    test(s"$name [$cases cases, seed $seed]") {
      val outcomes = scala.collection.mutable.Map.empty[String, Int].withDefaultValue(0)
      checkProperty(cases, seed) {
        Prop.forAllNoShrink(answers) { body =>
          val outcome = readBoth(body)
          outcomes(outcome) += 1
          if (mustRead) assert(outcome == "read by the connector", "an answer of a form the connector reads")
          true
        }
      }
      info(outcomes.toSeq.sorted.map { case (o, n) => s"$n $o" }.mkString(", "))
    }

  private val encoded: Gen[Array[Byte]] = for {
    answer <- CborAnswers.answer
    widen <- Gen.frequency(2 -> Gen.const(0L), 1 -> Gen.long)
  } yield Cbor.encode(answer, widen)

  differential("generated answers in every form the wire format allows", encoded, cases = 600, seed = 1L)

  // ---- cases the properties found, kept by name (each was read differently before its fix) ----

  private def answerWith(record: (String, Cbor)*): Array[Byte] =
    Cbor.encode(Cbor.map("Records" -> Cbor.Items(Seq(Cbor.map(record: _*))), "NextShardIterator" -> Cbor.text("n")))

  private def example(name: String, expected: String)(body: Array[Byte]): Unit =
    test(s"example: $name")(assert(readBoth(body) == expected))

  example("an arrival time of 1e19 ms, beyond a long, fails as the SDK fails", "failed on both")(
    answerWith("Data" -> Cbor.Bytes(Array[Byte](1)), "ApproximateArrivalTimestamp" -> Cbor.Double64(1e19)))
  example("an infinite half-float arrival time fails as the SDK fails", "failed on both")(
    answerWith("Data" -> Cbor.Bytes(Array[Byte](1)), "ApproximateArrivalTimestamp" -> Cbor.Half(0xfc00)))
  example("an arrival time of exactly 2^63 ms as a double is read as the largest long", "read by the connector")(
    answerWith("Data" -> Cbor.Bytes(Array[Byte](1)), "ApproximateArrivalTimestamp" -> Cbor.Double64(9.223372036854775807e18)))
  example("a tag beyond an int, which the SDK's parser refuses, is left to it", "failed on both")(
    answerWith("Data" -> Cbor.Tagged(1L << 40, Cbor.Bytes(Array[Byte](1)))))
  example("a byte string tagged as a bignum, a number to the SDK's parser, is left to it", "failed on both")(
    answerWith("Data" -> Cbor.Tagged(2, Cbor.Bytes(Array[Byte](1)))))
  example("a record without data reads as empty data on both paths (the SDK's path threw)", "read by the connector")(
    answerWith("PartitionKey" -> Cbor.text("k"), "SequenceNumber" -> Cbor.text("1")))
  example("a record with null data reads as empty data on both paths", "read by the connector")(
    answerWith("Data" -> Cbor.Null, "PartitionKey" -> Cbor.text("k")))
}
