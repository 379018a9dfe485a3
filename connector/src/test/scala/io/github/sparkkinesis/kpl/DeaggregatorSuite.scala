// SPDX-License-Identifier: Apache-2.0
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

  private val lowHalf = HashKeyRange(BigInt(0), HashKeyRange.MaxHashKey / 2)
  private val high = (HashKeyRange.MaxHashKey / 2 + 1).toString
  private def check(policy: OutOfRangePolicy, parents: HashKeyRange*) = Some(RangeCheck(lowHalf, parents, policy))
  private val mixed =
    aggregateWithHashKeys(("a", Some("5"), "in-0"), ("b", Some(high), "out-1"), ("c", Some("7"), "in-2"))

  test("by default every user record of a mixed-key aggregate is kept, and those outside the range counted") {
    val d = Deaggregator("outer", mixed, check(OutOfRangePolicy.Keep))
    summary(d) shouldBe Seq(("a", "in-0", 0L), ("b", "out-1", 1L), ("c", "in-2", 2L))
    d.outOfRange shouldBe 1
    d.dropped shouldBe 0
  }

  test("drop (the KCL's filter) drops and counts them; numbers keep their gaps, and every read drops alike") {
    val d = Deaggregator("outer", mixed, check(OutOfRangePolicy.Drop))
    summary(d) shouldBe Seq(("a", "in-0", 0L), ("c", "in-2", 2L))
    d.outOfRange shouldBe 1
    d.dropped shouldBe 1
    summary(Deaggregator("outer", mixed, check(OutOfRangePolicy.Drop))) shouldBe summary(d)
  }

  test("dropAfterSplit drops them only where a parent's range holds the whole aggregate (a stale shard map)") {
    val whole = HashKeyRange(BigInt(0), HashKeyRange.MaxHashKey)
    val otherQuarter = HashKeyRange(HashKeyRange.MaxHashKey / 2 + 1, HashKeyRange.MaxHashKey)
    summary(Deaggregator("outer", mixed, check(OutOfRangePolicy.DropAfterSplit, whole))).map(_._2) shouldBe
      Seq("in-0", "in-2")
    // No parent, or none holding every record: a mixed-key producer's aggregate, kept.
    Deaggregator("outer", mixed, check(OutOfRangePolicy.DropAfterSplit)).records.size shouldBe 3
    Deaggregator("outer", mixed, check(OutOfRangePolicy.DropAfterSplit, otherQuarter)).records.size shouldBe 3
  }

  test("an aggregate its producer marked as sending misrouted records again has that copy dropped by default") {
    val builder = new AggregateBuilder(ResendMark.tags("shardId-000000000000"))
    builder.add("a", Some("5"), "in-0".getBytes(UTF_8))
    builder.add("b", Some(high), "out-1".getBytes(UTF_8))
    val d = Deaggregator("outer", builder.result(), check(OutOfRangePolicy.Keep))
    summary(d) shouldBe Seq(("a", "in-0", 0L))
    (d.outOfRange, d.dropped) shouldBe ((1, 1))
    // Inside its range, a marked aggregate is read whole.
    Deaggregator("outer", builder.result(),
      Some(RangeCheck(HashKeyRange(0, HashKeyRange.MaxHashKey), Nil,
          OutOfRangePolicy.Keep))).records.size shouldBe 2
  }

  test("the mark's size is counted before the aggregate is built, and other tags are read but change nothing") {
    val builder = new AggregateBuilder(ResendMark.tags("shardId-000000000007"))
    builder.add("k", None, Array.fill(100)(1.toByte))
    builder.sizeWith("k2", Some("12"), 3) shouldBe {
      val probe = new AggregateBuilder(ResendMark.tags("shardId-000000000007"))
      probe.add("k", None, Array.fill(100)(1.toByte))
      probe.add("k2", Some("12"), Array(1, 2, 3).map(_.toByte))
      probe.result().length.toLong
    }
    builder.size shouldBe builder.result().length.toLong
    val tagged = KplEnvelope.wrap(AggregatedRecord(Vector("a"), Vector.empty,
        Vector(AggregatedEntry(0, None, "x".getBytes(UTF_8), Vector(AggregateTag("source", Some("app")))))))
    Deaggregator("outer", tagged, check(OutOfRangePolicy.Keep)).records.map(r => text(r.data)) shouldBe Seq("x")
  }

  test("without an explicit hash key, the MD5 of the partition key decides, as Kinesis computes it") {
    // MD5("a") = 0cc175b9c0f1b6a831c399e269772661: in the low half of the key space.
    HashKeyRange.hashKeyOf("a", None) shouldBe BigInt("0cc175b9c0f1b6a831c399e269772661", 16)
    val highHalf = HashKeyRange(HashKeyRange.MaxHashKey / 2 + 1, HashKeyRange.MaxHashKey)
    summary(Deaggregator("o", aggregate("a" -> "1"), check(OutOfRangePolicy.Drop))).map(_._2) shouldBe Seq("1")
    Deaggregator("o", aggregate("a" -> "1"), Some(RangeCheck(highHalf, Nil, OutOfRangePolicy.Drop))).records shouldBe
      empty
  }

  test("plain records are never checked against the hash range: Kinesis put them in this shard") {
    val highHalf = HashKeyRange(HashKeyRange.MaxHashKey / 2 + 1, HashKeyRange.MaxHashKey)
    summary(Deaggregator("a", "plain".getBytes(UTF_8), Some(RangeCheck(highHalf, Nil, OutOfRangePolicy.Drop)))) shouldBe
      Seq(("a", "plain", 0L))
  }
}
