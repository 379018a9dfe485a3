// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.wire

import java.nio.charset.StandardCharsets.UTF_8
import java.util.Base64

import org.scalacheck.Gen

import io.github.sparkkinesis.client.wire.Cbor._

/**
 * GetRecords answers as CBOR items, in every form the wire format allows for what Kinesis
 * sends: fields in any order, missing or null, unknown fields holding any item, indefinite
 * lengths, chunked strings, tags, longer heads, data as bytes or base64 text, arrival times as
 * any kind of number; records without a partition key or sequence number only when asked for.
 */
object CborAnswers {

  /** All forms the wire format allows, or only those the SDK reads (numbers a long holds, tags it ignores). */
  final case class Forms(any: Boolean)
  val Any: Forms = Forms(any = true)
  val SdkReadable: Forms = Forms(any = false)

  def textItem(s: String): Gen[Cbor] = Gen.frequency(
    6 -> Gen.const(text(s)),
    1 -> WireGen.textChunks(s, 4).map(c => Text(s.getBytes(UTF_8), Some(c))))

  def bytesItem(b: Array[Byte]): Gen[Cbor] = Gen.frequency(
    6 -> Gen.const(Bytes(b)),
    1 -> WireGen.byteChunks(b.length, 4).map(c => Bytes(b, Some(c))))

  /** Binary data: a byte string, or base64 text (padded or not), as the SDK accepts both. */
  def dataItem(b: Array[Byte]): Gen[Cbor] = Gen.frequency(
    8 -> bytesItem(b),
    2 -> Gen.delay(textItem(Base64.getEncoder.encodeToString(b))),
    1 -> Gen.delay(textItem(Base64.getEncoder.withoutPadding().encodeToString(b))))

  private val doubles = Gen.oneOf(Gen.oneOf(0.0, -0.0, 1.0, -1.0, 0.5, 1.7000000001239e12, 1700000000123.999,
      Double.MaxValue, -Double.MaxValue, Double.MinPositiveValue, Double.PositiveInfinity, Double.NegativeInfinity,
      Double.NaN, 9.223372036854775807e18, -9.223372036854775808e18, 1e19, -1e19, 253402300799999.0),
    Gen.double, Gen.choose(-1e15, 1e15))

  /** Epoch milliseconds as every kind of CBOR number, at both ends of each one's range (of a long's, if readable). */
  def arrival(forms: Forms): Gen[Cbor] = {
    val inRange = (d: Double) => forms.any || (d >= Long.MinValue.toDouble && d <= Long.MaxValue.toDouble)
    val halves = Gen.oneOf(Gen.choose(0, 0xffff),
      Gen.oneOf(0x0000, 0x8000, 0x0001, 0x03ff, 0x0400, 0x7bff, 0xfbff,
        0x7c00, 0xfc00, 0x7e00))
    Gen.frequency(
      4 -> Gen.oneOf(Gen.choose(0L, Long.MaxValue),
        Gen.oneOf(0L, 23L, 24L, 255L, 256L, 65535L, 65536L,
          4294967295L, 4294967296L, 1700000000123L, Long.MaxValue)).map(Unsigned),
      (if (forms.any) 1 else 0) -> Gen.oneOf(Gen.choose(Long.MinValue, -1L), Gen.oneOf(-1L, Long.MinValue)).map(
        Unsigned),
      2 -> Gen.oneOf(Gen.choose(0L, Long.MaxValue), Gen.oneOf(0L, 1L, Long.MaxValue - 1, Long.MaxValue)).map(Negative),
      (if (forms.any) 1 else 0) -> Gen.choose(Long.MinValue, -1L).map(Negative),
      3 -> doubles.filter(inRange).map(Double64),
      2 -> doubles.map(_.toFloat).filter(f => inRange(f.toDouble)).map(Single),
      2 -> halves.filter(h => forms.any || (h & 0x7c00) != 0x7c00 || (h & 0x3ff) != 0).map(Half))
  }

  /** Tags, including (with any form) the ones the SDK's parser gives a meaning or refuses. */
  def tag(forms: Forms): Gen[Long] =
    if (forms.any) Gen.oneOf(0L, 1L, 2L, 3L, 4L, 5L, 21L, 22L, 23L, 24L, 25L, 32L, 256L, 258L, 55799L, 1L << 40)
    else Gen.oneOf(0L, 1L, 21L, 22L, 23L, 24L, 32L, 258L, 55799L, Int.MaxValue.toLong)

  def maybeTagged(forms: Forms)(item: Gen[Cbor]): Gen[Cbor] = Gen.frequency(
    14 -> item,
    1 -> (for { t <- tag(forms); i <- item } yield Tagged(t, i)))

  /** Any item, nested up to `depth` containers deep: what an unknown field may hold. */
  def anyItem(forms: Forms, depth: Int): Gen[Cbor] = {
    val scalar: Gen[Cbor] = Gen.oneOf(
      Gen.choose(0L, Long.MaxValue).map(Unsigned),
      Gen.long.map(Negative),
      WireGen.unicode(8).flatMap(textItem),
      WireGen.sized(0, 20).flatMap(bytesItem),
      arrival(forms),
      Gen.choose(0, 255).filter(v => v < 24 || v >= 32).map(Simple))
    if (depth <= 0) scalar
    else {
      val nested = Gen.frequency(
        3 -> scalar,
        1 -> (for {
          items <- Gen.choose(0, 4).flatMap(Gen.listOfN(_, anyItem(forms, depth - 1)))
          indefinite <- Gen.oneOf(true, false)
        } yield Items(items, indefinite)),
        1 -> (for {
          entries <- Gen.choose(0, 4).flatMap(Gen.listOfN(_,
              Gen.zip(Gen.frequency(4 -> WireGen.unicode(6).map(text), 1 -> Gen.choose(0L, 100L).map(Unsigned)),
                anyItem(forms, depth - 1))))
          indefinite <- Gen.oneOf(true, false)
        } yield Fields(entries, indefinite)))
      maybeTagged(forms)(nested)
    }
  }

  /** A field's value, or null, undefined or the field left out (None). */
  private def field(name: String, value: Gen[Cbor]): Gen[Option[(Cbor, Cbor)]] = Gen.frequency(
    20 -> value.map(v => Some((text(name), v))),
    1 -> Gen.oneOf(Null, Undefined).map(v => Some((text(name), v))),
    1 -> Gen.const(None))

  private def unknownFields(forms: Forms, max: Int): Gen[Seq[(Cbor, Cbor)]] =
    Gen.choose(0, max).flatMap(n => Gen.listOfN(n, Gen.zip(WireGen.unknownName.flatMap(textItem), anyItem(forms, 2))))

  private def fields(forms: Forms, known: Seq[Gen[Option[(Cbor, Cbor)]]], unknown: Int): Gen[Cbor] = for {
    present <- Gen.sequence[Seq[Option[(Cbor, Cbor)]], Option[(Cbor, Cbor)]](known)
    extra <- unknownFields(forms, unknown)
    order <- Gen.long
    indefinite <- Gen.oneOf(true, false)
  } yield Fields(new scala.util.Random(order).shuffle(present.flatten ++ extra), indefinite)

  val encryptionType: Gen[Cbor] =
    Gen.frequency(4 -> Gen.oneOf("NONE", "KMS").map(text), 1 -> WireGen.unicode(5).map(text))

  /**
   * One record: the four fields the connector reads, its encryption type, and unknown ones. The
   * partition key and sequence number, which every Kinesis record has, are there unless
   * `incomplete`: then one or both are missing or null.
   */
  def record(forms: Forms, data: Gen[Array[Byte]] = WireGen.data, incomplete: Boolean = false): Gen[Cbor] = for {
    lacking <- if (incomplete) Gen.oneOf(Set("PartitionKey"), Set("SequenceNumber"),
      Set("PartitionKey", "SequenceNumber"))
    else Gen.const(Set.empty[String])
    r <- fields(forms,
      Seq(
        field("Data", data.flatMap(d => maybeTagged(forms)(dataItem(d)))),
        required("PartitionKey", WireGen.partitionKey.flatMap(k => maybeTagged(forms)(textItem(k))), lacking),
        required("SequenceNumber", WireGen.sequenceNumber.flatMap(textItem), lacking),
        field("ApproximateArrivalTimestamp", maybeTagged(forms)(arrival(forms))),
        field("EncryptionType", encryptionType)),
      unknown = 2)
  } yield r

  /** A field every record has: its value, or (when `lacking` names it) null, undefined or left out. */
  private def required(name: String, value: Gen[Cbor], lacking: Set[String]): Gen[Option[(Cbor, Cbor)]] =
    if (!lacking(name)) value.map(v => Some((text(name), v)))
    else Gen.oneOf(Gen.const(None), Gen.oneOf(Null, Undefined).map(v => Some((text(name), v))))

  private def childShard(forms: Forms): Gen[Cbor] = for {
    id <- Gen.choose(0, 999999).map(i => f"shardId-$i%012d")
    parents <- Gen.choose(1, 2).flatMap(Gen.listOfN(_, Gen.choose(0, 999).map(i => text(f"shardId-$i%012d"))))
    start <- WireGen.hashKey
    end <- WireGen.hashKey
    shard <- fields(forms,
      Seq(field("ShardId", Gen.const(text(id))), field("ParentShards", Gen.const(Items(parents))),
        field("HashKeyRange", Gen.const(map("StartingHashKey" -> text(start), "EndingHashKey" -> text(end))))),
      unknown = 1)
  } yield shard

  /** A whole answer: records, the next iterator, how far behind, child shards at a shard's end, unknown fields. */
  def answer(forms: Forms,
      count: Gen[Int] = Gen.frequency(1 -> Gen.const(0), 6 -> Gen.choose(1, 8),
        1 -> Gen.choose(9, 60)), data: Gen[Array[Byte]] = WireGen.data, incomplete: Boolean = false): Gen[Cbor] = for {
    complete <- count.flatMap(Gen.listOfN(_, record(forms, data)))
    lacking <- record(forms, data, incomplete = true)
    at <- Gen.choose(0, complete.size)
    records = if (incomplete) complete.patch(at, Seq(lacking), 0) else complete
    indefinite <- Gen.oneOf(true, false)
    children <- Gen.choose(0, 2).flatMap(Gen.listOfN(_, childShard(forms)))
    millisBehind <- Gen.oneOf(Gen.choose(0L, Long.MaxValue), Gen.choose(0L, 100000L))
    whole <- fields(forms,
      Seq(
        if (incomplete) Gen.const(Some((text("Records"), Items(records, indefinite))))
        else Gen.frequency(20 -> Gen.const(Some((text("Records"), Items(records, indefinite)))),
          1 -> Gen.const(Some((text("Records"), Null))), 1 -> Gen.const(None)),
        field("NextShardIterator", WireGen.unicode(80).flatMap(textItem)),
        field("MillisBehindLatest", Gen.const(Unsigned(millisBehind))),
        if (children.isEmpty) Gen.const(None) else field("ChildShards", Gen.const(Items(children)))),
      unknown = 2)
  } yield whole
}
