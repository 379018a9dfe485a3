// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.wire

import java.nio.charset.StandardCharsets.UTF_8

import org.scalacheck.Gen

/** Generators of the values Kinesis answers hold, shared by the CBOR and JSON property tests. */
object WireGen {

  /** Any Unicode scalar value, weighted toward the ones decoders get wrong: NUL, multi-byte, surrogate pairs. */
  val codePoint: Gen[Int] = Gen.frequency(
    8 -> Gen.choose(0x20, 0x7e),
    1 -> Gen.const(0),
    1 -> Gen.choose(0x01, 0x1f),
    2 -> Gen.choose(0x80, 0x7ff),
    2 -> Gen.oneOf(Gen.choose(0x800, 0xd7ff), Gen.choose(0xe000, 0xfffd)),
    2 -> Gen.choose(0x10000, 0x10ffff),
    1 -> Gen.oneOf('"'.toInt, '\\'.toInt, '/'.toInt, 0x7f, 0xfeff, 0xffff))

  def unicode(maxLength: Int): Gen[String] = for {
    n <- Gen.choose(0, maxLength)
    points <- Gen.listOfN(n, codePoint)
  } yield new String(points.toArray, 0, points.size)

  /** Partition keys: any Unicode, mostly of the length Kinesis allows (1 to 256 characters), sometimes empty. */
  val partitionKey: Gen[String] = Gen.frequency(10 -> unicode(40), 1 -> unicode(256), 1 -> Gen.const(""))

  val sequenceNumber: Gen[String] = Gen.frequency(
    6 -> Gen.choose(1, 60).flatMap(n => Gen.listOfN(n, Gen.numChar)).map(_.mkString),
    1 -> unicode(20))

  /** Record data: every byte value, from empty to a few hundred KiB (larger ones have a property of their own). */
  val data: Gen[Array[Byte]] = Gen.frequency(
    2 -> Gen.const(Array.emptyByteArray),
    12 -> sized(0, 300),
    2 -> sized(300, 5000),
    1 -> sized(5000, 70000))

  def sized(min: Int, max: Int): Gen[Array[Byte]] = for {
    n <- Gen.choose(min, max)
    seed <- Gen.long
  } yield {
    val bytes = new Array[Byte](n)
    new scala.util.Random(seed).nextBytes(bytes)
    bytes
  }

  /** Field names a record or an answer does not define, some close to ones it does. */
  val unknownName: Gen[String] = Gen.frequency(
    4 -> Gen.oneOf("EncryptionTypeX", "data", "records", "Record", "SomethingNew", "", "ExplicitHashKey",
      "SubSequenceNumber", "Records2", "\u00c9t\u00e9", "Data ", "__type"),
    1 -> unicode(12))

  /** Explicit hash keys: decimal numbers in the 128-bit range, and beyond it. */
  val hashKey: Gen[String] = Gen.oneOf(
    Gen.choose(0L, Long.MaxValue).map(_.toString),
    Gen.const(((BigInt(1) << 128) - 1).toString),
    Gen.listOfN(39, Gen.numChar).map(_.mkString.dropWhile(_ == '0')).map(s => if (s.isEmpty) "0" else s))

  /** `value` as printable ASCII (anything else as `\\uXXXX`), for failure messages that any report can hold. */
  def printable(value: Any): String =
    String.valueOf(value).flatMap(c => if (c >= 0x20 && c < 0x7f) c.toString else f"\\u${c.toInt}%04x")

  /** Cut points of a sequence of `length`, ascending, for chunked strings and split frames. */
  def cuts(length: Int, max: Int): Gen[Seq[Int]] =
    if (length == 0) Gen.const(Nil)
    else Gen.choose(0, max).flatMap(n => Gen.listOfN(n, Gen.choose(0, length))).map(_.distinct.sorted)

  /** Sizes of chunks of a UTF-8 text cut only between characters (each chunk valid UTF-8 on its own). */
  def textChunks(s: String, max: Int): Gen[Seq[Int]] =
    cuts(s.length, max).map { at =>
      val between = at.map(i => if (i > 0 && i < s.length && Character.isLowSurrogate(s.charAt(i))) i - 1 else i)
      toSizes(between.map(i => s.substring(0, i).getBytes(UTF_8).length))
    }

  def byteChunks(length: Int, max: Int): Gen[Seq[Int]] = cuts(length, max).map(toSizes)

  private def toSizes(cutPoints: Seq[Int]): Seq[Int] = {
    val sorted = cutPoints.distinct.sorted
    sorted.zip(0 +: sorted).map { case (at, before) => at - before }
  }
}
