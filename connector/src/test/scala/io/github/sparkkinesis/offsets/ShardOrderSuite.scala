// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.offsets

import scala.util.Random

import org.scalacheck.{Gen, Prop}
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.PropertyChecks

class ShardOrderSuite extends AnyFunSuite with Matchers with PropertyChecks {

  private def key(stream: String, i: Int) = ShardKey(stream, f"shardId-$i%012d")

  test("shards come by stream, then shard id") {
    val shards = Map(key("b", 1) -> 1, key("a", 2) -> 2, key("a", 10) -> 3, key("b", 0) -> 4)
    ShardOrder.of(shards) shouldBe Seq(key("a", 2), key("a", 10), key("b", 0), key("b", 1))
  }

  test("an order kept from other shards is not reused for a set of the same size") {
    ShardOrder.of(Map(key("s", 1) -> 0, key("s", 2) -> 0))
    ShardOrder.of(Map(key("s", 1) -> 0, key("s", 3) -> 0)) shouldBe Seq(key("s", 1), key("s", 3))
    ShardOrder.of(Map.empty[ShardKey, Int]) shouldBe empty
  }

  property("the order kept between calls is the order sorted from scratch, over random histories of shards",
    cases = 200, seed = 20261127L) {
    Prop.forAll(Gen.choose(Long.MinValue, Long.MaxValue)) { seed =>
      val random = new Random(seed)
      var shards = Map.empty[ShardKey, Int]
      (1 to 20).forall { _ =>
        // Mostly the same shards again (as most offsets are); else some added or dropped.
        random.nextInt(4) match {
          case 0 => shards += key(Seq("a", "b")(random.nextInt(2)), random.nextInt(50)) -> 0
          case 1 if shards.nonEmpty => shards -= shards.keys.toSeq(random.nextInt(shards.size))
          case 2 => shards = shards.map { case (k, _) => k -> random.nextInt() }
          case _ =>
        }
        ShardOrder.of(shards) == shards.keys.toSeq.sorted
      }
    }
  }
}
