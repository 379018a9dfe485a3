// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.client.ShardDescription
import io.github.sparkkinesis.offsets.{KinesisSourceOffset, ShardKey}
import io.github.sparkkinesis.offsets.ShardPosition.{AfterSequence, AtTimestamp, ShardEnd, TrimHorizon}
import io.github.sparkkinesis.options.InitialPosition

class StartPositionsSuite extends AnyFunSuite with Matchers {
  private def shard(id: Int, parents: Int*) = ShardKey("s", f"shardId-$id%012d") ->
    ShardDescription(f"shardId-$id%012d", parents.headOption.map(p => f"shardId-$p%012d"),
      parents.drop(1).headOption.map(p => f"shardId-$p%012d"), closed = false)

  private def key(id: Int) = ShardKey("s", f"shardId-$id%012d")

  // 0 split into 2 and 3; 3 and 1 merged into 4; 5 is a new shard of an increased count.
  private val listed = Map(shard(0), shard(1), shard(2, 0), shard(3, 0), shard(4, 3, 1), shard(5))

  private def positions(named: (ShardKey, io.github.sparkkinesis.offsets.ShardPosition)*) =
    StartPositions.of(InitialPosition.Positions(KinesisSourceOffset(named.toMap)), listed, 42L)

  test("shards not named start at the trim horizon") {
    positions(key(5) -> AfterSequence("7")) shouldBe listed.keySet.map(_ -> TrimHorizon).toMap + (key(
      5) -> AfterSequence("7"))
  }

  test("shards a named shard descends from count as read, however far up, and their other children start") {
    positions(key(4) -> AfterSequence("9")) shouldBe
      Map(key(2) -> TrimHorizon, key(4) -> AfterSequence("9"), key(5) -> TrimHorizon)
    // A parent named as read to its end stays, so its children may start.
    positions(key(0) -> ShardEnd(None), key(3) -> AfterSequence("8")) shouldBe Map(key(0) -> ShardEnd(None),
      key(1) -> TrimHorizon, key(2) -> TrimHorizon, key(3) -> AfterSequence("8"), key(4) -> TrimHorizon,
      key(5) -> TrimHorizon)
  }

  test("positions of shards not listed (other streams, expired shards) are left out") {
    positions(ShardKey("other", "shardId-000000000000") -> TrimHorizon).keySet shouldBe listed.keySet
  }

  test("a time or the trim horizon starts every shard listed") {
    StartPositions.of(InitialPosition.Latest, listed, 42L) shouldBe listed.keySet.map(_ -> AtTimestamp(42L)).toMap
    StartPositions.of(InitialPosition.TrimHorizon, listed, 42L).values.toSet shouldBe Set(TrimHorizon)
  }
}
