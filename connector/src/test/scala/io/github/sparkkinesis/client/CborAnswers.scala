package io.github.sparkkinesis.client

import java.nio.charset.StandardCharsets.UTF_8
import java.util.Base64

import org.scalacheck.Gen

import io.github.sparkkinesis.client.Cbor._

/**
 * GetRecords answers as CBOR items, in every form the wire format allows for what Kinesis
 * sends: fields in any order, missing or null, unknown fields holding any item, indefinite
 * lengths, chunked strings, tags, longer heads, data as bytes or base64 text, arrival times as
 * any kind of number.
 */
object CborAnswers {

  def textItem(s: String): Gen[Cbor] = Gen.frequency(
    6 -> Gen.const(text(s)),
    1 -> WireGen.textChunks(s, 4).map(c => Text(s.getBytes(UTF_8), Some(c))))

  def bytesItem(b: Array[Byte]): Gen[Cbor] = Gen.frequency(
    6 -> Gen.const(Bytes(b)),
    1 -> WireGen.byteChunks(b.length, 4).map(c => Bytes(b, Some(c))))

  /** Binary data: a byte string, or base64 text (padded or not), as the SDK accepts both. */
  def dataItem(b: Array[Byte]): Gen[Cbor] = Gen.frequency(
    8 -> bytesItem(b),
    2 -> textItem(Base64.getEncoder.encodeToString(b)),
    1 -> textItem(Base64.getEncoder.withoutPadding().encodeToString(b)))

  private val doubles = Gen.oneOf(Gen.oneOf(0.0, -0.0, 1.0, -1.0, 0.5, 1.7000000001239e12, 1700000000123.999,
      Double.MaxValue, -Double.MaxValue, Double.MinPositiveValue, Double.PositiveInfinity, Double.NegativeInfinity,
      Double.NaN, 9.223372036854775807e18, -9.223372036854775808e18, 1e19, -1e19, 253402300799999.0),
    Gen.double, Gen.choose(-1e15, 1e15))

  /** Epoch milliseconds as every kind of CBOR number, at both ends of each one's range. */
  val arrival: Gen[Cbor] = Gen.frequency(
    4 -> Gen.oneOf(Gen.choose(0L, Long.MaxValue), Gen.oneOf(0L, 23L, 24L, 255L, 256L, 65535L, 65536L,
        4294967295L, 4294967296L, 1700000000123L, Long.MaxValue)).map(Unsigned),
    1 -> Gen.oneOf(Gen.choose(Long.MinValue, -1L), Gen.oneOf(-1L, -2L, Long.MinValue)).map(Unsigned),
    2 -> Gen.oneOf(Gen.choose(0L, Long.MaxValue), Gen.oneOf(0L, 1L, Long.MaxValue - 1, Long.MaxValue)).map(Negative),
    1 -> Gen.choose(Long.MinValue, -1L).map(Negative),
    3 -> doubles.map(Double64),
    2 -> doubles.map(d => Single(d.toFloat)),
    2 -> Gen.oneOf(Gen.choose(0, 0xffff), Gen.oneOf(0x0000, 0x8000, 0x0001, 0x03ff, 0x0400, 0x7bff, 0xfbff, 0x7c00,
        0xfc00, 0x7e00)).map(Half))

  /** Tags, including the ones a CBOR parser may give a meaning (bignums, decimals, dates). */
  val tag: Gen[Long] = Gen.oneOf(0L, 1L, 2L, 3L, 4L, 5L, 21L, 22L, 23L, 24L, 32L, 258L, 55799L, 1L << 40)

  def maybeTagged(item: Gen[Cbor]): Gen[Cbor] = Gen.frequency(
    14 -> item,
    1 -> (for { t <- tag; i <- item } yield Tagged(t, i)))

  /** Any item, nested up to `depth` containers deep: what an unknown field may hold. */
  def anyItem(depth: Int): Gen[Cbor] = {
    val scalar: Gen[Cbor] = Gen.oneOf(
      Gen.choose(0L, Long.MaxValue).map(Unsigned),
      Gen.long.map(Negative),
      WireGen.unicode(8).flatMap(textItem),
      WireGen.sized(0, 20).flatMap(bytesItem),
      arrival,
      Gen.choose(0, 255).filter(v => v < 24 || v >= 32).map(Simple))
    if (depth <= 0) scalar
    else {
      val nested = Gen.frequency(
        3 -> scalar,
        1 -> (for {
          items <- Gen.choose(0, 4).flatMap(Gen.listOfN(_, anyItem(depth - 1)))
          indefinite <- Gen.oneOf(true, false)
        } yield Items(items, indefinite)),
        1 -> (for {
          entries <- Gen.choose(0, 4).flatMap(Gen.listOfN(_,
            Gen.zip(Gen.frequency(4 -> WireGen.unicode(6).map(text), 1 -> Gen.choose(0L, 100L).map(Unsigned)),
              anyItem(depth - 1))))
          indefinite <- Gen.oneOf(true, false)
        } yield Fields(entries, indefinite)))
      maybeTagged(nested)
    }
  }

  /** A field's value, or null, undefined or the field left out (None). */
  private def field(name: String, value: Gen[Cbor]): Gen[Option[(Cbor, Cbor)]] = Gen.frequency(
    20 -> value.map(v => Some((text(name), v))),
    1 -> Gen.oneOf(Null, Undefined).map(v => Some((text(name), v))),
    1 -> Gen.const(None))

  private def unknownFields(max: Int): Gen[Seq[(Cbor, Cbor)]] =
    Gen.choose(0, max).flatMap(n => Gen.listOfN(n, Gen.zip(WireGen.unknownName.flatMap(textItem), anyItem(2))))

  private def fields(known: Seq[Gen[Option[(Cbor, Cbor)]]], unknown: Int): Gen[Cbor] = for {
    present <- Gen.sequence[Seq[Option[(Cbor, Cbor)]], Option[(Cbor, Cbor)]](known)
    extra <- unknownFields(unknown)
    order <- Gen.long
    indefinite <- Gen.oneOf(true, false)
  } yield Fields(new scala.util.Random(order).shuffle(present.flatten ++ extra), indefinite)

  val encryptionType: Gen[Cbor] = Gen.frequency(4 -> Gen.oneOf("NONE", "KMS").map(text), 1 -> WireGen.unicode(5).map(text))

  /** One record: the four fields the connector reads, its encryption type, and unknown ones. */
  val record: Gen[Cbor] = fields(Seq(
      field("Data", WireGen.data.flatMap(d => maybeTagged(dataItem(d)))),
      field("PartitionKey", WireGen.partitionKey.flatMap(k => maybeTagged(textItem(k)))),
      field("SequenceNumber", WireGen.sequenceNumber.flatMap(textItem)),
      field("ApproximateArrivalTimestamp", maybeTagged(arrival)),
      field("EncryptionType", encryptionType)),
    unknown = 2)

  private val childShard: Gen[Cbor] = for {
    id <- Gen.choose(0, 999999).map(i => f"shardId-$i%012d")
    parents <- Gen.choose(1, 2).flatMap(Gen.listOfN(_, Gen.choose(0, 999).map(i => text(f"shardId-$i%012d"))))
    start <- WireGen.hashKey
    end <- WireGen.hashKey
    shard <- fields(Seq(field("ShardId", Gen.const(text(id))), field("ParentShards", Gen.const(Items(parents))),
        field("HashKeyRange", Gen.const(map("StartingHashKey" -> text(start), "EndingHashKey" -> text(end))))),
      unknown = 1)
  } yield shard

  /** A whole answer: records, the next iterator, how far behind, child shards at a shard's end, unknown fields. */
  val answer: Gen[Cbor] = for {
    count <- Gen.frequency(1 -> Gen.const(0), 6 -> Gen.choose(1, 8), 1 -> Gen.choose(9, 60))
    records <- Gen.listOfN(count, record)
    indefinite <- Gen.oneOf(true, false)
    children <- Gen.choose(0, 2).flatMap(Gen.listOfN(_, childShard))
    millisBehind <- Gen.oneOf(Gen.choose(0L, Long.MaxValue), Gen.choose(0L, 100000L))
    whole <- fields(Seq(
        Gen.frequency(20 -> Gen.const(Some((text("Records"), Items(records, indefinite)))),
          1 -> Gen.const(Some((text("Records"), Null))), 1 -> Gen.const(None)),
        field("NextShardIterator", WireGen.unicode(80).flatMap(textItem)),
        field("MillisBehindLatest", Gen.const(Unsigned(millisBehind))),
        if (children.isEmpty) Gen.const(None) else field("ChildShards", Gen.const(Items(children)))),
      unknown = 2)
  } yield whole
}
