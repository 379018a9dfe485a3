package io.github.sparkkinesis.kpl

import java.nio.charset.StandardCharsets.UTF_8

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

class DeaggregatorSuite extends AnyFunSuite with Matchers {
  import KplTestData._

  private def summary(d: Deaggregated) = d.records.map(r => (r.partitionKey, text(r.data), r.subSequenceNumber))

  test("an aggregate becomes its user records, numbered from 0, each with its own partition key") {
    val d = Deaggregator("outer-key", aggregate("a" -> "1", "b" -> "2", "a" -> "3"), None)
    summary(d) shouldBe Seq(("a", "1", 0L), ("b", "2", 1L), ("a", "3", 2L))
    d.corrupt shouldBe None
    d.outOfRange shouldBe 0
  }

  test("a plain record is one user record with sub-sequence 0") {
    val d = Deaggregator("k", "plain".getBytes(UTF_8), None)
    summary(d) shouldBe Seq(("k", "plain", 0L))
    d.corrupt shouldBe None
  }

  test("a corrupt aggregate is passed on whole, as the KCL does, and says why") {
    val data = aggregate("a" -> "1")
    data(data.length - 1) = (data.last ^ 1).toByte
    val d = Deaggregator("outer", data, None)
    d.records.map(r => (r.partitionKey, r.data.toSeq, r.subSequenceNumber)) shouldBe Seq(("outer", data.toSeq, 0L))
    d.corrupt shouldBe Some("its MD5 does not match its body")
  }

  test("a key index outside its table makes the aggregate corrupt, not a crash") {
    val data = KplEnvelope.wrap(AggregatedRecord(Vector("a"), Vector.empty,
        Vector(AggregatedEntry(3, None, "x".getBytes(UTF_8)))))
    val d = Deaggregator("outer", data, None)
    d.records.map(_.partitionKey) shouldBe Seq("outer")
    d.corrupt.get should include("partition key index 3")
  }

  test("user records whose hash key is outside the shard's range are dropped and counted; numbers keep their gaps") {
    val lowHalf = HashKeyRange(BigInt(0), HashKeyRange.MaxHashKey / 2)
    val high = (HashKeyRange.MaxHashKey / 2 + 1).toString
    val data = aggregateWithHashKeys(("a", Some("5"), "in-0"), ("b", Some(high), "out-1"), ("c", Some("7"), "in-2"))
    val d = Deaggregator("outer", data, Some(lowHalf))
    summary(d) shouldBe Seq(("a", "in-0", 0L), ("c", "in-2", 2L))
    d.outOfRange shouldBe 1
    // The same read again drops the same records: replays stay identical.
    summary(Deaggregator("outer", data, Some(lowHalf))) shouldBe summary(d)
  }

  test("without an explicit hash key, the MD5 of the partition key decides, as Kinesis computes it") {
    // MD5("a") = 0cc175b9c0f1b6a831c399e269772661: in the low half of the key space.
    HashKeyRange.hashKeyOf("a", None) shouldBe BigInt("0cc175b9c0f1b6a831c399e269772661", 16)
    val lowHalf = HashKeyRange(BigInt(0), HashKeyRange.MaxHashKey / 2)
    val highHalf = HashKeyRange(HashKeyRange.MaxHashKey / 2 + 1, HashKeyRange.MaxHashKey)
    summary(Deaggregator("o", aggregate("a" -> "1"), Some(lowHalf))).map(_._2) shouldBe Seq("1")
    Deaggregator("o", aggregate("a" -> "1"), Some(highHalf)).records shouldBe empty
  }

  test("plain records are never checked against the hash range: Kinesis put them in this shard") {
    val highHalf = HashKeyRange(HashKeyRange.MaxHashKey / 2 + 1, HashKeyRange.MaxHashKey)
    summary(Deaggregator("a", "plain".getBytes(UTF_8), Some(highHalf))) shouldBe Seq(("a", "plain", 0L))
  }
}
