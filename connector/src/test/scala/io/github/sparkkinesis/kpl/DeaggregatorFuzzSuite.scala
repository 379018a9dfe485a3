// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.kpl

import java.nio.charset.StandardCharsets.UTF_8

import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite

import io.github.sparkkinesis.Fuzz
import io.github.sparkkinesis.client.wire.WireGen

/**
 * The KPL de-aggregator's entry point ([[Deaggregator.apply]], which every read path calls for
 * a record with the magic bytes) on hostile and damaged aggregates, their MD5 made to match so
 * that the protobuf reader sees the damage: it splits the aggregate, or passes the record on
 * whole as an ordinary one, naming why; it never throws.
 */
class DeaggregatorFuzzSuite extends AnyFunSuite with Fuzz {

  private val shard = RangeCheck(HashKeyRange(BigInt(0), HashKeyRange.MaxHashKey / 2), Nil, OutOfRangePolicy.Keep)

  private def deaggregate(data: Array[Byte]): String = {
    val checks = Seq(None, Some(shard), Some(shard.copy(policy = OutOfRangePolicy.Drop)))
    checks.map { check =>
      val d = Deaggregator("outer-key", data, check)
      d.corrupt match {
        case Some(_) =>
          assert(d.records.size == 1 && (d.records.head.data eq data) && d.records.head.partitionKey == "outer-key",
            "a record that is not a valid aggregate is passed on whole")
          "passed on whole"
        case None => "split"
      }
    }.head
  }

  private val bodies: Gen[Array[Byte]] = for {
    keys <- Gen.choose(1, 4).flatMap(Gen.listOfN(_, WireGen.unicode(8)))
    hashKeys <- Gen.choose(0, 3).flatMap(Gen.listOfN(_, WireGen.hashKey))
    entries <- Gen.choose(1, 6).flatMap(Gen.listOfN(_,
        for {
          key <- Gen.choose(0, keys.size - 1)
          hashKey <- if (hashKeys.isEmpty) Gen.const(None) else Gen.option(Gen.choose(0, hashKeys.size - 1))
          data <- WireGen.sized(0, 64)
          tags <- Gen.choose(0, 2).flatMap(Gen.listOfN(_, Gen.zip(WireGen.unicode(6), Gen.option(WireGen.unicode(6)))))
        } yield AggregatedEntry(key.toLong, hashKey.map(_.toLong), data,
          tags.map { case (k, v) => AggregateTag(k, v) }.toIndexedSeq)))
  } yield AggregatedRecord(keys.toIndexedSeq, hashKeys.toIndexedSeq, entries.toIndexedSeq).toByteArray

  private def bytes(values: Int*): Array[Byte] = values.map(_.toByte).toArray

  /** Varints too long or too large, lengths past the end, wire types protobuf has no more, long hash keys. */
  private val special: Gen[Array[Byte]] = Gen.oneOf(
    Gen.const(bytes(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01)),
    Gen.const(Array.fill(11)(0xff.toByte)),
    Gen.oneOf(0x0a, 0x12, 0x1a, 0x22).map(key => bytes(key, 0xff, 0xff, 0xff, 0xff, 0x0f)),
    Gen.oneOf(0x0a, 0x1a).map(key => bytes(key, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01)),
    Gen.oneOf(0x0b, 0x0c, 0x0e, 0x0f).map(key => bytes(key)),
    Gen.oneOf(0x08, 0x10).map(key => bytes(key, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01)),
    Gen.choose(39, 5000).map { n =>
      val key = ("1" + "0" * (n - 1)).getBytes(UTF_8)
      AggregatedRecord(IndexedSeq.empty, IndexedSeq(new String(key, UTF_8)), IndexedSeq.empty).toByteArray
    })

  /** `body` between the magic bytes and its own MD5. */
  private def framed(body: Array[Byte]): Array[Byte] = KplModel.envelope(body)

  fuzz("damaged aggregates with a matching MD5", Fuzz.mutated(bodies, special).map(framed), cases = 1000,
    seed = 61L)(deaggregate)
  fuzz("random bytes with a matching MD5", Fuzz.randomBytes.map(framed), cases = 500, seed = 62L)(deaggregate)
  fuzz("damaged whole records with the magic bytes",
    Fuzz.mutated(bodies.map(framed), special)
      .map(d => KplEnvelope.Magic ++ d.drop(4)), cases = 500, seed = 63L)(deaggregate)

  // ---- inputs that once broke the decoder ----

  /** One user record whose explicit hash key is `hashKey`. */
  private def withHashKey(hashKey: String): Array[Byte] = KplEnvelope.wrap(AggregatedRecord(IndexedSeq("k"),
      IndexedSeq(hashKey), IndexedSeq(AggregatedEntry(0L, Some(0L), Array[Byte](1)))))

  test("corpus: an explicit hash key of 200,000 digits is outside every shard, without reading it as a number " +
    "(a key of a record's 10 MiB took the thread for the better part of an hour)") {
    val key = "1" + "0" * 199999
    assert(HashKeyRange.hashKeyOf("k", Some(key)) == HashKeyRange.BeyondMaxHashKey)
    val d = Deaggregator("outer-key", withHashKey(key), Some(shard))
    assert(d.corrupt.isEmpty && d.outOfRange == 1 && d.records.map(_.explicitHashKey) == Seq(Some(key)))
  }

  test("corpus: explicit hash keys with leading zeros, or of 39 digits, are read as numbers") {
    assert(HashKeyRange.hashKeyOf("k", Some("0" * 100 + "42")) == BigInt(42))
    assert(HashKeyRange.hashKeyOf("k", Some(HashKeyRange.MaxHashKey.toString)) == HashKeyRange.MaxHashKey)
    assert(HashKeyRange.hashKeyOf("k", Some("9" * 39)) == BigInt("9" * 39))
    assert(HashKeyRange.hashKeyOf("k", Some("1" + "0" * 39)) == HashKeyRange.BeyondMaxHashKey)
  }
}
