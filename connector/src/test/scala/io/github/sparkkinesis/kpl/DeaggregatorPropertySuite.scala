// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.kpl

import org.scalacheck.{Gen, Prop}
import org.scalatest.funsuite.AnyFunSuite

import io.github.sparkkinesis.PropertyChecks
import io.github.sparkkinesis.client.wire.WireGen
import io.github.sparkkinesis.kpl.KplModel._

/**
 * Generated KPL aggregates, written by [[KplModel]] in every form protobuf allows (fields in
 * any order, unknown fields of every wire type, longer varints, repeated fields), split by
 * [[Deaggregator]] into exactly the user records the model says they hold; invalid, damaged
 * and cut aggregates are passed on whole as corrupt, as the KCL passes them on.
 */
class DeaggregatorPropertySuite extends AnyFunSuite with PropertyChecks {

  /** The one place the de-aggregator is entered. */
  private def split(data: Array[Byte], range: Option[RangeCheck] = None): Deaggregated =
    Deaggregator("outer-key", data, range)

  private def shape(d: Deaggregated) = d.records.map(r =>
    (r.partitionKey, r.explicitHashKey, r.data.toSeq,
      r.subSequenceNumber))

  private def passedOnWhole(d: Deaggregated, data: Array[Byte]): Boolean =
    d.corrupt.isDefined && shape(d) == Seq(("outer-key", None, data.toSeq, 0L)) && d.outOfRange == 0

  private val padding = Gen.frequency(4 -> Gen.const(0), 1 -> Gen.choose(1, 4))

  /** A field the format does not define here: another number, or a known number with another wire type. */
  private def unknownField(known: Map[Int, String]): Gen[Field] = for {
    number <-
      Gen.frequency(3 -> Gen.choose(4, 40), 1 -> Gen.choose(41, (1 << 29) - 1), 1 -> Gen.oneOf(known.keys.toSeq))
    kinds = Seq("varint", "bytes", "fixed32", "fixed64").filterNot(known.get(number).contains)
    kind <- Gen.oneOf(kinds)
    field <- kind match {
      case "varint" => Gen.zip(Gen.long, padding).map { case (v, p) => VarintField(number, v, p) }
      case "bytes" => WireGen.sized(0, 30).map(BytesField(number, _))
      case "fixed32" => Gen.choose(Int.MinValue, Int.MaxValue).map(Fixed32Field(number, _))
      case _ => Gen.long.map(Fixed64Field(number, _))
    }
  } yield field

  private def unknownFields(known: Map[Int, String]): Gen[Seq[Field]] =
    Gen.frequency(3 -> Gen.const(Nil), 2 -> Gen.choose(1, 3).flatMap(Gen.listOfN(_, unknownField(known))))

  /** An entry's fields in any order: a decoy partition key index may come first (the last one counts). */
  private def entryFields(e: Entry): Gen[Seq[Field]] =
    for {
      p1 <- padding
      p2 <- padding
      decoy <- if (e.partitionKeyIndex.isEmpty) Gen.const(Nil)
      else Gen.frequency(5 -> Gen.const(Nil), 1 -> Gen.choose(0L, 1000L).map(v => Seq(VarintField(1, v))))
      tags <- Gen.frequency(3 -> Gen.const(Nil),
        1 -> Gen.zip(WireGen.unicode(5), WireGen.unicode(5)).map { case (k, v) =>
          Seq(BytesField(4, encode(Seq(BytesField(1, k.getBytes("UTF-8")), BytesField(2, v.getBytes("UTF-8"))))))
        })
      unknown <- unknownFields(Map(1 -> "varint", 2 -> "varint", 3 -> "bytes", 4 -> "bytes"))
      seed <- Gen.long
    } yield interleave(
      Seq(
        decoy ++ e.partitionKeyIndex.map(VarintField(1, _, p1)), e.hashKeyIndex.map(VarintField(2, _, p2)).toSeq,
        e.data.map(BytesField(3, _)).toSeq, tags) ++ unknown.map(Seq(_)), seed)

  /** An aggregate; with `breakOne`, one thing in it made invalid (which the model then says). */
  private def aggregate(breakOne: Boolean): Gen[Aggregate] =
    for {
      partitionKeys <- Gen.choose(1, 4).flatMap(Gen.listOfN(_, WireGen.partitionKey))
      hashKeys <- Gen.choose(0, 3).flatMap(Gen.listOfN(_, WireGen.hashKey))
      count <- Gen.choose(if (breakOne) 1 else 0, 6)
      entries <- Gen.listOfN(count,
        for {
          pk <- Gen.choose(0, partitionKeys.size - 1)
          hk <- if (hashKeys.isEmpty) Gen.const(None) else Gen.option(Gen.choose(0, hashKeys.size - 1))
          data <- Gen.frequency(1 -> Gen.const(Array.emptyByteArray), 6 -> WireGen.sized(0, 200))
        } yield Entry(Some(pk.toLong), hk.map(_.toLong), Some(data)))
      victim <- Gen.choose(0, math.max(0, count - 1))
      broken <- if (!breakOne) Gen.const((entries, hashKeys))
      else Gen.oneOf(
        Gen.choose(partitionKeys.size.toLong, Long.MaxValue).map(i =>
          (entries.updated(victim, entries(victim).copy(partitionKeyIndex = Some(i))), hashKeys)),
        Gen.choose(hashKeys.size.toLong, hashKeys.size + 3L).map(i =>
          (entries.updated(victim, entries(victim).copy(hashKeyIndex = Some(i))), hashKeys)),
        Gen.const((entries.updated(victim, entries(victim).copy(partitionKeyIndex = None)), hashKeys)),
        Gen.const((entries.updated(victim, entries(victim).copy(data = None)), hashKeys)),
        Gen.oneOf("", "12a", "-5", "+5", " 1", "1.0").map(bad =>
          (entries.updated(victim, entries(victim).copy(hashKeyIndex = Some(hashKeys.size.toLong))), hashKeys :+ bad)))
      (finalEntries, finalHashKeys) = broken
      perEntry <- Gen.sequence[Seq[Seq[Field]], Seq[Field]](finalEntries.map(entryFields))
      unknown <- unknownFields(Map(1 -> "bytes", 2 -> "bytes", 3 -> "bytes"))
      seed <- Gen.long
    } yield Aggregate(partitionKeys, finalHashKeys, finalEntries,
      interleave(
        Seq(
          partitionKeys.map(k => BytesField(1, k.getBytes("UTF-8"))),
          finalHashKeys.map(k => BytesField(2, k.getBytes("UTF-8"))),
          perEntry.map(f => BytesField(3, encode(f)))) ++ unknown.map(Seq(_)), seed))

  private val anyAggregate = Gen.frequency(3 -> aggregate(breakOne = false), 1 -> aggregate(breakOne = true))

  test("aggregates in any field order, with unknown fields and long varints, hold what the model says " +
    "[400 cases, seed 31]") {
    var valid, corrupt = 0
    checkProperty(400, 31L) {
      Prop.forAllNoShrink(anyAggregate) { a =>
        val data = a.bytes
        val d = split(data)
        a.userRecords match {
          case Some(records) => valid += 1; d.corrupt.isEmpty && shape(d) == records && d.outOfRange == 0
          case None => corrupt += 1; passedOnWhole(d, data)
        }
      }
    }
    info(s"$valid valid aggregates split, $corrupt invalid ones passed on whole")
  }

  property("an aggregate with a byte changed after its magic bytes, or cut short, is passed on whole", 300, 32L) {
    Prop.forAllNoShrink(aggregate(breakOne = false), Gen.choose(0, Int.MaxValue), Gen.choose(1, 255),
      Gen.oneOf(true, false)) { (a, where, delta, cut) =>
      val whole = a.bytes
      val at = 4 + where % (whole.length - 4)
      val damaged = if (cut) whole.take(at) else whole.updated(at, (whole(at) + delta).toByte)
      passedOnWhole(split(damaged), damaged)
    }
  }

  property("records without the magic bytes are one user record each, whatever they hold", 300, 33L) {
    Prop.forAllNoShrink(WireGen.sized(0, 100)) { data =>
      val plain = if (KplEnvelope.hasMagic(data)) data.updated(0, 0.toByte) else data
      val d = split(plain)
      d.corrupt.isEmpty && shape(d) == Seq(("outer-key", None, plain.toSeq, 0L))
    }
  }

  private val range: Gen[HashKeyRange] = for {
    a <- Gen.choose(0L, Long.MaxValue).map(v => BigInt(v) * BigInt(Long.MaxValue) * 4)
    b <- Gen.choose(0L, Long.MaxValue).map(v => BigInt(v) * BigInt(Long.MaxValue) * 4)
  } yield HashKeyRange(a.min(b).min(HashKeyRange.MaxHashKey), a.max(b).min(HashKeyRange.MaxHashKey))

  property("a shard's range counts the user records outside it; drop drops them, keep keeps them", 300, 34L) {
    Prop.forAllNoShrink(aggregate(breakOne = false), range, Gen.oneOf(OutOfRangePolicy.all)) { (a, r, policy) =>
      val records = a.userRecords.get
      val inside = records.filter { case (pk, ehk, _, _) => r.contains(hashKey(pk, ehk)) }
      val outside = records.size - inside.size
      // No parent is known here, so only drop drops (the model's aggregates carry no mark).
      val dropped = policy == OutOfRangePolicy.Drop && outside > 0
      val d = split(a.bytes, Some(RangeCheck(r, Nil, policy)))
      d.corrupt.isEmpty && shape(d) == (if (dropped) inside else records) && d.outOfRange == outside &&
      d.dropped == (if (dropped) outside else 0)
    }
  }
}
