// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.kpl

import java.nio.charset.StandardCharsets.UTF_8
import java.security.MessageDigest

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

class KplEnvelopeSuite extends AnyFunSuite with Matchers {
  import KplTestData._

  private def opened(data: Array[Byte]): AggregatedRecord = KplEnvelope.open(data) match {
    case KplEnvelope.Aggregate(record) => record
    case other => fail(s"expected an aggregate, got $other")
  }

  test("an aggregate written by the codec reads back with its keys, hash keys and payloads") {
    val data =
      aggregateWithHashKeys(("k1", None, "one"), ("k2", Some("170141183460469231731687303715884105728"), "two"),
        ("k1", None, ""))
    val record = opened(data)
    record.partitionKeys shouldBe Seq("k1", "k2")
    record.explicitHashKeys shouldBe Seq("170141183460469231731687303715884105728")
    record.records.map(r => (r.partitionKeyIndex, r.explicitHashKeyIndex, text(r.data))) shouldBe
      Seq((0L, None, "one"), (1L, Some(0L), "two"), (0L, None, ""))
  }

  test("the frame is the magic bytes, the protobuf body and the body's MD5, byte for byte") {
    // AggregatedRecord { partition_key_table: "a"; records { partition_key_index: 0; data: "x" } }
    val body = Array[Byte](0x0a, 0x01, 'a', 0x1a, 0x05, 0x08, 0x00, 0x1a, 0x01, 'x')
    val expected = Array(0xf3, 0x89, 0x9a, 0xc2).map(_.toByte) ++ body ++ MessageDigest.getInstance("MD5").digest(body)
    aggregate("a" -> "x") shouldBe expected
  }

  test("fields a newer producer adds (tags, unknown numbers, every wire type) are skipped") {
    val tag = new ProtoWriter().bytesField(1, "t".getBytes(UTF_8)).toByteArray
    val entry = new ProtoWriter().varintField(1, 0).bytesField(3, "x".getBytes(UTF_8)).bytesField(4, tag)
      .varintField(9, 300).toByteArray
    val fixed = Array[Byte]((15 << 3 | 1).toByte, 1, 2, 3, 4, 5, 6, 7, 8, (16 << 3 | 5).toByte, 1) ++
      Array[Byte](1, 0, 0, 0)
    val body = new ProtoWriter().bytesField(1, "a".getBytes(UTF_8)).bytesField(3, entry).toByteArray ++ fixed
    val data = KplEnvelope.Magic ++ body ++ MessageDigest.getInstance("MD5").digest(body)
    opened(data).records.map(r => text(r.data)) shouldBe Seq("x")
  }

  test("varints past one byte and large indices round trip") {
    val keys = (0 until 300).map(i => s"key-$i")
    val record = AggregatedRecord(keys, Vector.empty, Vector(AggregatedEntry(299, None, Array.fill(200)(7.toByte))))
    val back = opened(KplEnvelope.wrap(record))
    back.records.head.partitionKeyIndex shouldBe 299
    back.records.head.data.length shouldBe 200
    back.partitionKeys shouldBe keys
  }

  test("data without the magic bytes is not an aggregate") {
    KplEnvelope.open("plain".getBytes(UTF_8)) shouldBe KplEnvelope.NotAggregated
    KplEnvelope.open(Array.emptyByteArray) shouldBe KplEnvelope.NotAggregated
    KplEnvelope.open(KplEnvelope.Magic.take(3)) shouldBe KplEnvelope.NotAggregated
  }

  test("a wrong MD5, a body that does not parse, or a frame too short is corrupt, with the reason") {
    val good = aggregate("a" -> "x")
    val badDigest = good.clone()
    badDigest(badDigest.length - 1) = (badDigest.last ^ 1).toByte
    KplEnvelope.open(badDigest) shouldBe KplEnvelope.Corrupt("its MD5 does not match its body")

    val body = Array[Byte](0x1a, 0x7f, 0x08) // a record said to be 127 bytes long, but 1 is there
    val unparsable = KplEnvelope.Magic ++ body ++ MessageDigest.getInstance("MD5").digest(body)
    KplEnvelope.open(unparsable) match {
      case KplEnvelope.Corrupt(reason) => reason should include("does not parse")
      case other => fail(s"expected corrupt, got $other")
    }
    KplEnvelope.open(KplEnvelope.Magic ++ Array[Byte](1, 2)) shouldBe KplEnvelope.Corrupt(
      "it is shorter than its frame")
  }
}
