// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.wire

import java.util.{Base64, UUID}

import org.scalacheck.Gen

import io.github.sparkkinesis.client.wire.EventStream._
import io.github.sparkkinesis.client.wire.Json._

/**
 * SubscribeToShard event streams as the property tests generate them: events whose JSON has
 * fields in any order, missing or null, unknown fields of any value, any whitespace and
 * escapes, arrival times as every form of JSON number; framed with extra headers of every type.
 */
object JsonEvents {

  private val seconds = Gen.oneOf(Gen.choose(0L, 4102444800L), Gen.oneOf(0L, 1L, 1700000000L, 9999999999L))

  /** Epoch seconds in the forms a JSON number takes: integer, fraction, exponent, negative (as long as the SDK reads). */
  val timestamp: Gen[Json] = Gen.oneOf(
    seconds.map(s => Num(s.toString)),
    Gen.zip(seconds, Gen.choose(1, 9).flatMap(n => Gen.listOfN(n, Gen.numChar))).map { case (s, f) =>
      Num(s"$s.${f.mkString}")
    },
    seconds.filter(_ > 0).map(s => Num(s"${s}0E-1")),
    seconds.filter(_ >= 10).map(s => Num(s"${s / 10}.${s % 10}e+1")),
    seconds.map(s => Num(s"${s}e0")),
    Gen.oneOf("-1.5", "-0", "0", "0.0004", "-1700000000.123", "1.7e9", "123456789012345678", "1234567890123456789",
      "1700000000.12345678901", "9223372036854775.807", "9223372036854775.808", "-9223372036854775.808", "1E-400",
      "1E+15").map(Num)).filter(_.text.length <= 20)

  /** Names of fields no event defines, with no character JSON must escape (the connector leaves escaped names to the SDK). */
  private val unknownName = WireGen.unknownName.filter(_.forall(c => c >= ' ' && c != '"' && c != '\\'))

  /** Any JSON value, nested up to `depth`. */
  def anyJson(depth: Int): Gen[Json] = {
    val scalar: Gen[Json] = Gen.oneOf(WireGen.unicode(10).map(Str(_)), timestamp, Gen.oneOf(Bool(true), Bool(false)),
      Gen.const(Null), Gen.long.map(n => Num(n.toString)))
    if (depth <= 0) scalar
    else Gen.frequency(
      3 -> scalar,
      1 -> Gen.choose(0, 3).flatMap(Gen.listOfN(_, anyJson(depth - 1))).map(Arr),
      1 -> Gen.choose(0, 3).flatMap(Gen.listOfN(_, Gen.zip(unknownName, anyJson(depth - 1)))).map(Obj))
  }

  private def field(name: String, value: Gen[Json]): Gen[Option[(String, Json)]] = Gen.frequency(
    20 -> value.map(v => Some(name -> v)),
    1 -> Gen.const(Some(name -> Null)),
    1 -> Gen.const(None))

  private def obj(known: Seq[Gen[Option[(String, Json)]]], unknown: Int): Gen[Json] = for {
    present <- Gen.sequence[Seq[Option[(String, Json)]], Option[(String, Json)]](known)
    extra <- Gen.choose(0, unknown).flatMap(Gen.listOfN(_, Gen.zip(unknownName, anyJson(2))))
    order <- Gen.long
  } yield Obj(new scala.util.Random(order).shuffle(present.flatten ++ extra))

  /** Base64 as the SDK reads it (padded, or not). */
  private def base64(data: Array[Byte]): Gen[Json] = Gen.oneOf(
    Gen.delay(Gen.const(Str(Base64.getEncoder.encodeToString(data), plain = true))),
    Gen.delay(Gen.const(Str(Base64.getEncoder.withoutPadding().encodeToString(data), plain = true))))

  /**
   * One record. The partition key and sequence number, which every Kinesis record has, are there
   * unless `incomplete`: then one or both are missing or null.
   */
  def record(data: Gen[Array[Byte]] = WireGen.data, incomplete: Boolean = false): Gen[Json] = for {
    lacking <- if (incomplete) Gen.oneOf(Set("PartitionKey"), Set("SequenceNumber"),
      Set("PartitionKey", "SequenceNumber"))
    else Gen.const(Set.empty[String])
    r <- obj(
      Seq(
        field("Data", data.flatMap(base64)),
        required("PartitionKey", WireGen.partitionKey.map(Str(_)), lacking),
        required("SequenceNumber", WireGen.sequenceNumber.map(Str(_)), lacking),
        field("ApproximateArrivalTimestamp", timestamp),
        field("EncryptionType", Gen.frequency(4 -> Gen.oneOf("NONE", "KMS"), 1 -> WireGen.unicode(4)).map(Str(_)))),
      unknown = 2)
  } yield r

  /** A field every record has: its value, or (when `lacking` names it) null or left out. */
  private def required(name: String, value: Gen[Json], lacking: Set[String]): Gen[Option[(String, Json)]] =
    if (!lacking(name)) value.map(v => Some(name -> v))
    else Gen.oneOf(Gen.const(None), Gen.const(Some(name -> Null)))

  private val childShard: Gen[Json] = for {
    id <- Gen.choose(0, 999999).map(i => f"shardId-$i%012d")
    start <- WireGen.hashKey
    end <- WireGen.hashKey
    shard <- obj(Seq(field("ShardId", Gen.const(Str(id))),
        field("ParentShards", Gen.const(Arr(Seq(Str("shardId-000000000000"))))),
        field("HashKeyRange", Gen.const(Obj(Seq("StartingHashKey" -> Str(start), "EndingHashKey" -> Str(end)))))),
      unknown = 1)
  } yield shard

  def event(count: Gen[Int] = Gen.frequency(1 -> Gen.const(0), 6 -> Gen.choose(1, 6), 1 -> Gen.choose(7, 30)),
      data: Gen[Array[Byte]] = WireGen.data, incomplete: Boolean = false): Gen[Json] = for {
    complete <- count.flatMap(Gen.listOfN(_, record(data)))
    lacking <- record(data, incomplete = true)
    at <- Gen.choose(0, complete.size)
    records = if (incomplete) complete.patch(at, Seq(lacking), 0) else complete
    children <- Gen.choose(0, 2).flatMap(Gen.listOfN(_, childShard))
    whole <- obj(
      Seq(
        if (incomplete) Gen.const(Some("Records" -> Arr(records)))
        else Gen.frequency(20 -> Gen.const(Some("Records" -> Arr(records))), 1 -> Gen.const(Some("Records" -> Null)),
          1 -> Gen.const(None)),
        field("ContinuationSequenceNumber", WireGen.sequenceNumber.map(Str(_))),
        field("MillisBehindLatest", Gen.choose(0L, 100000000L).map(n => Num(n.toString))),
        if (children.isEmpty) Gen.const(None) else field("ChildShards", Gen.const(Arr(children)))),
      unknown = 2)
  } yield whole

  /**
   * Extra headers, which readers must step over to find the ones they want: strings, or (with
   * `anyType`) every type the framing defines, which the SDK refuses in an event.
   */
  def extraHeaders(anyType: Boolean): Gen[Seq[(String, Header)]] = Gen.choose(0, 3).flatMap(Gen.listOfN(_,
      Gen.zip(
        Gen.oneOf("x-extra", ":date", "a", "z-long-header-name"),
        if (!anyType) Gen.oneOf(StringHeader("v\u00e9"), StringHeader(":event-type"), StringHeader(" "))
        else Gen.oneOf[Header](BoolHeader(true), BoolHeader(false), ByteHeader(-1), ShortHeader(-2), IntHeader(7),
          LongHeader(Long.MinValue), BytesHeader(Array[Byte](1, 2, 3)), StringHeader("v\u00e9"), TimestampHeader(0L),
          UuidHeader(new UUID(1L, 2L)), BytesHeader(Array.emptyByteArray)))))

  /** One SubscribeToShardEvent message, its standard headers in any order among extra ones. */
  def eventMessage(payload: Gen[String], anyHeaders: Boolean = false): Gen[Array[Byte]] =
    for {
      json <- payload
      extra <- extraHeaders(anyHeaders)
      order <- Gen.long
      contentType <- Gen.oneOf("application/json", "application/x-amz-json-1.1")
    } yield message(new scala.util.Random(order).shuffle(Seq(":message-type" -> StringHeader("event"),
        ":event-type" -> StringHeader("SubscribeToShardEvent"), ":content-type" -> StringHeader(contentType)) ++ extra),
      json.getBytes(java.nio.charset.StandardCharsets.UTF_8))

  val initialResponse: Array[Byte] = EventStream.event("initial-response", "{}")

  /** A whole answer: the initial response, then events. */
  def stream(payload: Gen[String], events: Gen[Int] = Gen.choose(1, 4), anyHeaders: Boolean = false): Gen[Array[Byte]] =
    events.flatMap(Gen.listOfN(_, eventMessage(payload, anyHeaders))).map(m => Array.concat(initialResponse +: m: _*))

  /** An event's JSON written compactly or with any whitespace and escapes. */
  def payload(events: Gen[Json] = event()): Gen[String] = for {
    e <- events
    style <- Gen.frequency(1 -> Gen.const(0L), 2 -> Gen.long)
  } yield render(e, style)
}
