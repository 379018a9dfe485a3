// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.kpl

import java.nio.charset.StandardCharsets.UTF_8

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

class AggregateBuilderSuite extends AnyFunSuite with Matchers {
  import KplTestData.text

  private def bytes(s: String): Array[Byte] = s.getBytes(UTF_8)

  test("what the builder packs, the deaggregator gives back: keys, hash keys, payloads, in order") {
    val b = new AggregateBuilder
    val top = HashKeyRange.MaxHashKey.toString
    b.add("k1", None, bytes("one"))
    b.add("k2", Some(top), bytes("two"))
    b.add("k1", None, bytes(""))
    b.add("ключ", Some(top), bytes("four"))
    val out = Deaggregator("outer", b.result(), None)
    out.corrupt shouldBe None
    out.records.map(r => (r.partitionKey, r.explicitHashKey, text(r.data), r.subSequenceNumber)) shouldBe Seq(
      ("k1", None, "one", 0L), ("k2", Some(top), "two", 1L), ("k1", None, "", 2L), ("ключ", Some(top), "four", 3L))
    b.count shouldBe 4
    b.firstPartitionKey shouldBe Some("k1")
  }

  test("keys are tabled once each") {
    val b = new AggregateBuilder
    (1 to 5).foreach(i => b.add(if (i % 2 == 0) "even" else "odd", Some("7"), bytes(s"$i")))
    val record = KplEnvelope.open(b.result()) match {
      case KplEnvelope.Aggregate(r) => r
      case other => fail(s"not an aggregate: $other")
    }
    record.partitionKeys shouldBe Seq("odd", "even")
    record.explicitHashKeys shouldBe Seq("7")
  }

  test("size and sizeWith are the exact length of the result, however large the fields get") {
    val b = new AggregateBuilder
    b.isEmpty shouldBe true
    b.size shouldBe KplEnvelope.Overhead
    // Lengths and indices that cross the varint byte boundaries (127/128, 16383/16384).
    val lengths = Seq(0, 1, 127, 128, 300, 16383, 16384, 70000)
    val records = (0 until 200).map { i =>
      val key = "k" * (1 + i % 130) + (if (i % 3 == 0) s"-$i" else "")
      val hashKey = if (i % 4 == 0) Some((BigInt(i) * 1000003).toString) else None
      (key, hashKey, new Array[Byte](lengths(i % lengths.size)))
    }
    records.foreach { case (key, hashKey, data) =>
      val predicted = b.sizeWith(key, hashKey, data.length)
      b.add(key, hashKey, data)
      b.size shouldBe predicted
      b.result().length.toLong shouldBe predicted
    }
    Deaggregator("x", b.result(), None).records.map(_.data.length) shouldBe records.map(_._3.length)
  }

  test("an aggregate of the Kinesis Producer Library's own layout: the bytes are the protobuf the format defines") {
    val b = new AggregateBuilder
    b.add("a", None, bytes("x"))
    b.result() shouldBe KplTestData.aggregate("a" -> "x")
  }

  test("record ids: each user record's tag comes back as its id, after the first record's resend mark") {
    val b = new AggregateBuilder(ResendMark.tags("shardId-000000000001"))
    val predicted = b.sizeWith("k", None, 3, RecordId.tags("q/1/2/0"))
    b.add("k", None, bytes("one"), RecordId.tags("q/1/2/0"))
    b.size shouldBe predicted
    b.add("k", None, bytes("two"))
    b.add("j", None, bytes("three"), RecordId.tags("q/1/2/2"))
    b.result().length.toLong shouldBe b.size
    val record = KplEnvelope.open(b.result()) match {
      case KplEnvelope.Aggregate(r) => r
      case other => fail(s"not an aggregate: $other")
    }
    record.records.head.tags shouldBe ResendMark.tags("shardId-000000000001") ++ RecordId.tags("q/1/2/0")
    Deaggregator("outer", b.result(), None).records.map(r => (text(r.data), r.recordId)) shouldBe
      Seq(("one", Some("q/1/2/0")), ("two", None), ("three", Some("q/1/2/2")))
  }

  test("a record wrapped alone with its id is an aggregate of its exact predicted length, read back whole") {
    Seq(None, Some("340282366920938463463374607431768211455")).foreach { hashKey =>
      val wrapped = RecordId.wrap("ключ", hashKey, bytes("payload"), "query/7/3/12")
      wrapped.length.toLong shouldBe RecordId.wrappedLength("ключ", hashKey, 7, "query/7/3/12")
      val back = Deaggregator("ignored", wrapped, None).records
      back.map(r => (r.partitionKey, r.explicitHashKey, text(r.data), r.recordId)) shouldBe
        Seq(("ключ", hashKey, "payload", Some("query/7/3/12")))
    }
    RecordId.of(IndexedSeq(AggregateTag("other", Some("x")))) shouldBe None
  }
}
