// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.offsets

import java.nio.charset.StandardCharsets

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.errors.KinesisConnectorException

class KinesisOffsetJsonSuite extends AnyFunSuite with Matchers {
  import ShardPosition._

  private val seq = "49590338271490256608559692538361571095921575989136588898"

  private def resource(path: String): String = {
    val in = getClass.getClassLoader.getResourceAsStream(path)
    require(in != null, s"test resource $path is missing")
    try new String(in.readAllBytes(), StandardCharsets.UTF_8)
    finally in.close()
  }

  private def offsetError(json: String): KinesisConnectorException =
    intercept[KinesisConnectorException](KinesisOffsetJson.read(json))

  Seq[(String, ShardPosition)](
    "trim_horizon" -> TrimHorizon,
    "at_timestamp" -> AtTimestamp(1593105825000L),
    "after a sequence number" -> AfterSequence(seq),
    "after a user record inside a KPL aggregate" -> AfterSequence(seq, Some(3L)),
    "shard end, with the last sequence number" -> ShardEnd(Some(seq)),
    "shard end, of a shard the query read nothing from" -> ShardEnd(None)).foreach { case (name, position) =>
    test(s"round trip of the position: $name") {
      val offset = KinesisSourceOffset(Map(ShardKey("s", "shardId-000000000000") -> position))
      KinesisOffsetJson.read(offset.json()) shouldBe offset
    }
  }

  test("a position inside an aggregate is written as an optional \"sub\"; a whole record has none") {
    val inside = KinesisOffsetJson.write(KinesisSourceOffset(Map(ShardKey("s", "shardId-000000000000") -> AfterSequence(
          seq, Some(7L)))))
    inside should include(s""""seq":"$seq","sub":7""")
    KinesisOffsetJson.write(KinesisSourceOffset(Map(ShardKey("s", "shardId-000000000000") -> AfterSequence(
          seq)))) should not include "sub"
  }

  test("an offset file written before sub-sequences existed reads as positions after whole records") {
    val old = KinesisOffsetJson.read(resource("offsets/v1.json"))
    old.shards(ShardKey("clicks", "shardId-000000000000")) shouldBe AfterSequence(seq, None)
  }

  test("a \"sub\" that is not a non-negative integer is refused, naming the shard") {
    Seq("-1", "\"3\"", "1.5").foreach { sub =>
      val json = s"""{"version":1,"shards":{"s":{"shardId-000000000000":{"type":"after","seq":"$seq","sub":$sub}}}}"""
      offsetError(json).getMessage should include("s/shardId-000000000000")
    }
  }

  test("round trip of several streams and shards keeps every position") {
    val offset = KinesisSourceOffset(Map(
        ShardKey("a", "shardId-000000000000") -> AfterSequence(seq),
        ShardKey("a", "shardId-000000000001") -> ShardEnd(None),
        ShardKey("b.c-d_e", "shardId-000000000000") -> AtTimestamp(0L),
        ShardKey("b.c-d_e", "shardId-000000000005") -> TrimHorizon))
    KinesisOffsetJson.read(KinesisOffsetJson.write(offset)) shouldBe offset
  }

  test("streams and shards are written in sorted order, whatever the map order") {
    val entries = Seq(
      ShardKey("zeta", "shardId-000000000002") -> TrimHorizon,
      ShardKey("alpha", "shardId-000000000010") -> AfterSequence(seq),
      ShardKey("zeta", "shardId-000000000001") -> ShardEnd(None),
      ShardKey("alpha", "shardId-000000000003") -> TrimHorizon)
    val json = KinesisOffsetJson.write(KinesisSourceOffset(entries.toMap))
    val reversed = KinesisOffsetJson.write(KinesisSourceOffset(entries.reverse.toMap))
    json shouldBe reversed

    val order = Seq("\"alpha\"", "shardId-000000000003", "shardId-000000000010",
      "\"zeta\"", "shardId-000000000001", "shardId-000000000002").map(json.indexOf(_))
    all(order) should be >= 0
    order shouldBe order.sorted
  }

  test("a saved version 1 offset still reads, and is written back byte for byte") {
    val saved = resource("offsets/v1.json").trim
    val expected = KinesisSourceOffset(Map(
        ShardKey("clicks", "shardId-000000000000") -> AfterSequence(seq),
        ShardKey("clicks", "shardId-000000000001") -> TrimHorizon,
        ShardKey("clicks", "shardId-000000000002") ->
          ShardEnd(Some("49590338271490256608559692538361571095921575989136589898")),
        ShardKey("clicks", "shardId-000000000003") -> ShardEnd(None),
        ShardKey("orders.eu-1", "shardId-000000000000") -> AtTimestamp(1593105825000L),
        ShardKey("orders.eu-1", "shardId-000000000007") ->
          AfterSequence("9999999999999999999999999999999999999999999999999999996500")))
    KinesisOffsetJson.read(saved) shouldBe expected
    expected.json() shouldBe saved
  }

  test("an offset of a newer version is rejected, naming both versions") {
    val e = offsetError("""{"version":2,"shards":{}}""")
    e.getCondition shouldBe "KINESIS_OFFSET_VERSION_UNSUPPORTED"
    e.getMessage should include("version 2")
    e.getMessage should include("up to 1")
  }

  Seq(
    "not JSON" -> "kinesis offset 12",
    "a JSON array" -> "[1, 2]",
    "no version" -> """{"shards":{}}""",
    "a version that is a string" -> """{"version":"1","shards":{}}""",
    "no shards" -> """{"version":1}""",
    "a stream that is not an object" -> """{"version":1,"shards":{"s":[]}}""",
    "a sequence number with letters" ->
      """{"version":1,"shards":{"s":{"shardId-0":{"type":"after","seq":"4959x"}}}}""",
    "an empty sequence number" ->
      """{"version":1,"shards":{"s":{"shardId-0":{"type":"after","seq":""}}}}""",
    "a numeric sequence number" ->
      """{"version":1,"shards":{"s":{"shardId-0":{"type":"after","seq":4959}}}}""",
    "an after position without sequence number" ->
      """{"version":1,"shards":{"s":{"shardId-0":{"type":"after"}}}}""",
    "an at_timestamp position without ms" ->
      """{"version":1,"shards":{"s":{"shardId-0":{"type":"at_timestamp"}}}}""",
    "an unknown position type" ->
      """{"version":1,"shards":{"s":{"shardId-0":{"type":"latest"}}}}""",
    "a position without type" ->
      """{"version":1,"shards":{"s":{"shardId-0":{"seq":"4959"}}}}""").foreach { case (name, json) =>
    test(s"a malformed offset is rejected with a worked example: $name") {
      val e = offsetError(json)
      e.getCondition shouldBe "KINESIS_OFFSET_MALFORMED"
      e.getMessage should include(KinesisOffsetJson.Example)
      // The example itself must be a valid offset, or it would mislead.
      noException should be thrownBy KinesisOffsetJson.read(KinesisOffsetJson.Example)
    }
  }

  test("the malformed-offset message says what is wrong") {
    offsetError("""{"version":1,"shards":{"s":{"shardId-0":{"type":"latest"}}}}""")
      .getMessage should (include("s/shardId-0") and include("latest"))
    offsetError("""{"version":1,"shards":{"s":{"shardId-0":{"type":"after","seq":"12a"}}}}""")
      .getMessage should include("decimal \"seq\"")
  }

  test("offsets are equal when their positions are, also to another Offset with the same JSON") {
    val a = KinesisSourceOffset(Map(ShardKey("s", "shard-1") -> ShardPosition.AfterSequence("7"),
        ShardKey("s", "shard-2") -> ShardPosition.TrimHorizon), Map("s" -> 5L))
    val same = KinesisSourceOffset(Map(ShardKey("s", "shard-2") -> ShardPosition.TrimHorizon,
        ShardKey("s", "shard-1") -> ShardPosition.AfterSequence("7")), Map("s" -> 5L))
    val later = a.copy(shards = a.shards.updated(ShardKey("s", "shard-1"), ShardPosition.AfterSequence("8")))
    a shouldBe same
    a.hashCode shouldBe same.hashCode
    a should not be later
    a should not be a.copy(streamsCreatedAt = Map.empty)
    val logged = new org.apache.spark.sql.connector.read.streaming.Offset { override def json(): String = a.json() }
    a.equals(logged) shouldBe true
    later.equals(logged) shouldBe false
  }
}
