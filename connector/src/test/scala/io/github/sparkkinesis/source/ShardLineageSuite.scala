// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.client.ShardDescription
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}

class ShardLineageSuite extends AnyFunSuite with Matchers {
  import ShardPosition._

  private val seq = "49590338271490256608559692538361571095921575989136588898"
  private def shard(id: String, stream: String = "s") = ShardKey(stream, id)

  /** A shard of stream "s" as ListShards describes it, with its parent and adjacent parent. */
  private def describe(id: String, parents: String*): (ShardKey, ShardDescription) =
    shard(id) -> ShardDescription(id, parents.headOption, parents.drop(1).headOption, closed = false)

  /** The readable shards, from the lineage the listing `descriptions` gives. */
  private def readable(tracked: Map[ShardKey, ShardPosition],
      descriptions: Map[ShardKey, ShardDescription]): Map[ShardKey, ShardPosition] =
    ShardLineage.readable(tracked, ShardLineage.parents(descriptions))

  /** A split of `parent` into `a` and `b`. */
  private val split = Map(describe("parent"), describe("a", "parent"), describe("b", "parent"))

  test("children of a split are not readable while their parent is not read to its end") {
    Seq(TrimHorizon, AtTimestamp(1L), AfterSequence(seq)).foreach { parentAt =>
      val tracked = Map(shard("parent") -> parentAt, shard("a") -> TrimHorizon, shard("b") -> TrimHorizon)
      readable(tracked, split).keySet shouldBe Set(shard("parent"))
    }
  }

  test("children of a split are readable, from where they are, once the parent has ended") {
    val tracked =
      Map(shard("parent") -> ShardEnd(Some(seq)), shard("a") -> TrimHorizon, shard("b") -> AfterSequence(seq))
    readable(tracked, split) shouldBe Map(shard("a") -> TrimHorizon, shard("b") -> AfterSequence(seq))
  }

  test("the child of a merge waits for both parents") {
    val merge = Map(describe("p1"), describe("p2"), describe("child", "p1", "p2"))
    def readableWith(p1: ShardPosition, p2: ShardPosition) =
      readable(Map(shard("p1") -> p1, shard("p2") -> p2, shard("child") -> TrimHorizon), merge).keySet

    readableWith(ShardEnd(Some(seq)), AfterSequence(seq)) shouldBe Set(shard("p2"))
    readableWith(AfterSequence(seq), ShardEnd(None)) shouldBe Set(shard("p1"))
    readableWith(ShardEnd(Some(seq)), ShardEnd(None)) shouldBe Set(shard("child"))
  }

  test("parents the query does not track do not hold their children back") {
    val tracked = Map(shard("a") -> TrimHorizon, shard("b") -> AfterSequence(seq))
    readable(tracked, split) shouldBe tracked

    val merge = Map(describe("p1"), describe("p2"), describe("child", "p1", "p2"))
    readable(Map(shard("p2") -> ShardEnd(None), shard("child") -> TrimHorizon), merge).keySet shouldBe
      Set(shard("child"))
  }

  test("a parent of the same name in another stream does not count") {
    val descriptions = Map(describe("a", "parent"))
    val tracked = Map(shard("parent", "other") -> TrimHorizon, shard("a") -> TrimHorizon)
    readable(tracked, descriptions).keySet shouldBe Set(shard("parent", "other"), shard("a"))
  }

  test("ended shards are never readable; shards not described are readable") {
    readable(Map(shard("x") -> ShardEnd(None), shard("y") -> TrimHorizon), Map.empty) shouldBe
      Map(shard("y") -> TrimHorizon)
  }
}
