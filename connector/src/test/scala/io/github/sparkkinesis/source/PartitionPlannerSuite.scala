// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import org.scalacheck.{Gen, Prop}
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.PropertyChecks
import io.github.sparkkinesis.errors.KinesisConnectorException
import io.github.sparkkinesis.offsets.{KinesisOffsetJson, KinesisSourceOffset, ShardKey, ShardPosition}

/**
 * How a batch's shard ranges become tasks: one per shard, or small ones packed together; the
 * packing is decided once, kept in the end offset, and planning follows it whatever it holds.
 */
class PartitionPlannerSuite extends AnyFunSuite with Matchers with PropertyChecks {

  private val exec1 = "executor_host1_1"
  private val exec2 = "executor_host2_2"

  private def key(i: Int) = ShardKey("clicks", f"shardId-$i%012d")

  /** A range of shard `i` whose prefetched blocks (of `blockBytes` each) live at `location`. */
  private def range(i: Int, blockBytes: Seq[Long], location: String = exec1): ShardRange = {
    val blocks = blockBytes.zipWithIndex.map { case (bytes, n) =>
      BlockRef(s"input-1-$i$n", ShardPosition.TrimHorizon, ShardPosition.AfterSequence(s"$i$n"), bytes, location)
    }
    ShardRange(key(i), ShardPosition.TrimHorizon, ShardPosition.AfterSequence(s"${i}999"), blocks)
  }

  /** The tasks of a batch planned right after its end offset was set, from the same blocks. */
  private def planned(ranges: Seq[ShardRange], coalesceThresholdBlockSize: Long, coalesceBinSize: Long) =
    PartitionPlanner.plan(ranges, PartitionPlanner.coalesce(ranges, coalesceThresholdBlockSize, coalesceBinSize))

  private def shardsOf(tasks: Seq[KinesisInputPartition]): Seq[Seq[Int]] =
    tasks.map(_.ranges.map(_.shard.shardId.takeRight(3).toInt))

  test("blocks at or above the threshold on average: one task per shard, in order, and nothing in the offset") {
    val ranges = (0 until 4).map(i => range(i, Seq(100L, 300L)))
    PartitionPlanner.coalesce(ranges, coalesceThresholdBlockSize = 200, coalesceBinSize = 10000) shouldBe empty
    shardsOf(planned(ranges, coalesceThresholdBlockSize = 200, coalesceBinSize = 10000)) shouldBe
      Seq(Seq(0), Seq(1), Seq(2), Seq(3))
  }

  test("small blocks are packed (largest first) into tasks of at most coalesceBinSize bytes, planned in shard order") {
    val ranges = Seq(range(0, Seq(40L)), range(1, Seq(70L)), range(2, Seq(30L)), range(3, Seq(50L)), range(4, Seq(10L)))
    val tasks = planned(ranges, coalesceThresholdBlockSize = 1000, coalesceBinSize = 100)
    shardsOf(tasks) shouldBe Seq(Seq(0, 3, 4), Seq(1, 2))
    all(tasks.map(_.ranges.map(_.bytes).sum)) should be <= 100L
  }

  test("a range larger than a bin gets a task of its own") {
    val ranges = Seq(range(0, Seq(500L)), range(1, Seq(20L)), range(2, Seq(20L)))
    shardsOf(planned(ranges, coalesceThresholdBlockSize = 1000, coalesceBinSize = 100)) shouldBe Seq(Seq(0), Seq(1, 2))
  }

  test("ranges on different executors are never packed together; each task prefers its executor") {
    val ranges = Seq(range(0, Seq(10L), exec1), range(1, Seq(10L), exec2), range(2, Seq(10L), exec1),
      range(3, Seq(10L), exec2))
    val tasks = planned(ranges, coalesceThresholdBlockSize = 1000, coalesceBinSize = 100)
    shardsOf(tasks) shouldBe Seq(Seq(0, 2), Seq(1, 3))
    tasks.map(t => t.preferredLocations().toSeq -> t.ranges.map(_.blocks.head.location).distinct)
      .foreach { case (preferred, locations) => preferred shouldBe locations }
  }

  test("ranges with nothing prefetched are never packed: each re-reads Kinesis in a task of its own") {
    val ranges = Seq(range(0, Nil), range(1, Seq(10L)), range(2, Nil), range(3, Seq(10L)))
    val tasks = planned(ranges, coalesceThresholdBlockSize = 1000, coalesceBinSize = 100)
    shardsOf(tasks) shouldBe Seq(Seq(0), Seq(1, 3), Seq(2))
    tasks.filter(_.ranges.exists(_.blocks.isEmpty)).foreach(_.preferredLocations() shouldBe empty)
  }

  test("the average block size decides, over every prefetched block of the batch") {
    // Average (10 + 10 + 400) / 3 = 140: below a threshold of 150, so packed.
    val ranges = Seq(range(0, Seq(10L, 10L)), range(1, Seq(400L)))
    shardsOf(planned(ranges, coalesceThresholdBlockSize = 150, coalesceBinSize = 1000)) shouldBe Seq(Seq(0, 1))
    shardsOf(planned(ranges, coalesceThresholdBlockSize = 140, coalesceBinSize = 1000)) shouldBe Seq(Seq(0), Seq(1))
  }

  test("no ranges, no tasks") {
    planned(Nil, coalesceThresholdBlockSize = 1000, coalesceBinSize = 100) shouldBe empty
  }

  test("the packing travels in the end offset's JSON, and offsets without it plan one task per shard") {
    val ranges = (0 until 3).map(i => range(i, Seq(10L)))
    val coalesced = PartitionPlanner.coalesce(ranges, coalesceThresholdBlockSize = 1000, coalesceBinSize = 100)
    val end = KinesisSourceOffset(ranges.map(r => r.shard -> r.end).toMap, coalesced = coalesced)
    end.json() should include(""""coalesced":{"clicks":{"shardId-000000000000":0""")
    val read = KinesisOffsetJson.read(end.json())
    read shouldBe end
    shardsOf(PartitionPlanner.plan(ranges, read.coalesced)) shouldBe Seq(Seq(0, 1, 2))
    val before = KinesisOffsetJson.read(KinesisSourceOffset(end.shards).json())
    shardsOf(PartitionPlanner.plan(ranges, before.coalesced)) shouldBe Seq(Seq(0), Seq(1), Seq(2))
  }

  test("a task number that is not a non-negative integer is refused, naming where") {
    val json = """{"version":1,"shards":{"clicks":{"shardId-000000000000":{"type":"trim_horizon"}}},""" +
      """"coalesced":{"clicks":{"shardId-000000000000":-1}}}"""
    Seq(json, json.replace("-1", "\"x\"")).foreach { bad =>
      (the[KinesisConnectorException] thrownBy KinesisOffsetJson.read(bad)).getMessage should include(
        "coalesced.clicks.shardId-000000000000 is not a non-negative integer")
    }
  }

  /** Any blocks, of any sizes, on one of three executors, or none. */
  private val heldBlocks: Gen[Seq[(Long, String)]] = Gen.oneOf(
    Gen.const(Nil),
    Gen.listOfN(3, Gen.zip(Gen.choose(1L, 400L), Gen.oneOf(exec1, exec2, "executor_host3_3"))).flatMap(bs =>
      Gen.choose(1, 3).map(bs.take)))

  private def rangesHolding(held: Seq[Seq[(Long, String)]]): Seq[ShardRange] =
    held.zipWithIndex.map { case (blocks, i) =>
      val refs = blocks.zipWithIndex.map { case ((bytes, location), n) =>
        BlockRef(s"input-$i-$n", ShardPosition.TrimHorizon, ShardPosition.AfterSequence(s"$i$n"), bytes, location)
      }
      ShardRange(key(i), ShardPosition.TrimHorizon, ShardPosition.AfterSequence(s"${i}999"), refs)
    }

  property("a batch's tasks are a function of its end offset: the same ranges in the same order whatever " +
      "is held when it runs", cases = 500, seed = 20261128L) {
    val batch = for {
      shards <- Gen.choose(1, 16)
      whenEndSet <- Gen.listOfN(shards, heldBlocks)
      whenRun <- Gen.listOfN(shards, heldBlocks)
      threshold <- Gen.oneOf(50L, 1000L)
      bin <- Gen.oneOf(100L, 300L, 10000L)
    } yield (whenEndSet, whenRun, threshold, bin)
    Prop.forAll(batch) { case (whenEndSet, whenRun, threshold, bin) =>
      val end = KinesisOffsetJson.read(KinesisSourceOffset(Map.empty,
          coalesced = PartitionPlanner.coalesce(rangesHolding(whenEndSet), threshold, bin)).json())
      def rows(tasks: Seq[KinesisInputPartition]) = tasks.map(_.ranges.map(r => (r.shard, r.start, r.end)))
      val first = rows(PartitionPlanner.plan(rangesHolding(whenEndSet), end.coalesced))
      val again = rows(PartitionPlanner.plan(rangesHolding(whenRun), end.coalesced))
      val fromLogAlone = rows(PartitionPlanner.plan(rangesHolding(whenEndSet.map(_ => Nil)), end.coalesced))
      first == again && first == fromLogAlone && first.flatten.map(_._1).sorted == rangesHolding(whenRun).map(_.shard)
    }
  }
}
