// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}

/** How a batch's shard ranges become tasks: one per shard, or small ones packed together. */
class PartitionPlannerSuite extends AnyFunSuite with Matchers {

  private val exec1 = "executor_host1_1"
  private val exec2 = "executor_host2_2"

  /** A range of shard `i` whose prefetched blocks (of `blockBytes` each) live at `location`. */
  private def range(i: Int, blockBytes: Seq[Long], location: String = exec1): ShardRange = {
    val shard = ShardKey("clicks", f"shardId-$i%012d")
    val blocks = blockBytes.zipWithIndex.map { case (bytes, n) =>
      BlockRef(s"input-1-$i$n", ShardPosition.TrimHorizon, ShardPosition.AfterSequence(s"$i$n"), bytes, location)
    }
    ShardRange(shard, ShardPosition.TrimHorizon, ShardPosition.AfterSequence(s"${i}end"), blocks)
  }

  private def shardsOf(tasks: Seq[KinesisInputPartition]): Seq[Seq[Int]] =
    tasks.map(_.ranges.map(_.shard.shardId.takeRight(3).toInt))

  test("blocks at or above the threshold on average: one task per shard, in order") {
    val ranges = (0 until 4).map(i => range(i, Seq(100L, 300L)))
    val tasks = PartitionPlanner.plan(ranges, coalesceThresholdBlockSize = 200, coalesceBinSize = 10000)
    shardsOf(tasks) shouldBe Seq(Seq(0), Seq(1), Seq(2), Seq(3))
  }

  test("small blocks are packed into tasks of at most coalesceBinSize bytes, largest first") {
    val ranges = Seq(range(0, Seq(40L)), range(1, Seq(70L)), range(2, Seq(30L)), range(3, Seq(50L)), range(4, Seq(10L)))
    val tasks = PartitionPlanner.plan(ranges, coalesceThresholdBlockSize = 1000, coalesceBinSize = 100)
    shardsOf(tasks) shouldBe Seq(Seq(1, 2), Seq(3, 0, 4))
    all(tasks.map(_.ranges.map(_.bytes).sum)) should be <= 100L
    tasks.flatMap(_.ranges).map(_.shard).sorted shouldBe ranges.map(_.shard)
  }

  test("a range larger than a bin gets a task of its own") {
    val ranges = Seq(range(0, Seq(500L)), range(1, Seq(20L)), range(2, Seq(20L)))
    val tasks = PartitionPlanner.plan(ranges, coalesceThresholdBlockSize = 1000, coalesceBinSize = 100)
    shardsOf(tasks) shouldBe Seq(Seq(0), Seq(1, 2))
  }

  test("ranges on different executors are never packed together; each task prefers its executor") {
    val ranges = Seq(range(0, Seq(10L), exec1), range(1, Seq(10L), exec2), range(2, Seq(10L), exec1),
      range(3, Seq(10L), exec2))
    val tasks = PartitionPlanner.plan(ranges, coalesceThresholdBlockSize = 1000, coalesceBinSize = 100)
    shardsOf(tasks).map(_.sorted).sortBy(_.head) shouldBe Seq(Seq(0, 2), Seq(1, 3))
    tasks.map(t => t.preferredLocations().toSeq -> t.ranges.map(_.blocks.head.location).distinct)
      .foreach { case (preferred, locations) => preferred shouldBe locations }
  }

  test("ranges with nothing prefetched are never packed: each re-reads Kinesis in a task of its own") {
    val ranges = Seq(range(0, Nil), range(1, Seq(10L)), range(2, Nil), range(3, Seq(10L)))
    val tasks = PartitionPlanner.plan(ranges, coalesceThresholdBlockSize = 1000, coalesceBinSize = 100)
    shardsOf(tasks) shouldBe Seq(Seq(1, 3), Seq(0), Seq(2))
    tasks.filter(_.ranges.exists(_.blocks.isEmpty)).foreach(_.preferredLocations() shouldBe empty)
  }

  test("the average block size decides, over every prefetched block of the batch") {
    // Average (10 + 10 + 400) / 3 = 140: below a threshold of 150, so packed.
    val ranges = Seq(range(0, Seq(10L, 10L)), range(1, Seq(400L)))
    shardsOf(PartitionPlanner.plan(ranges, coalesceThresholdBlockSize = 150, coalesceBinSize = 1000)) shouldBe
      Seq(Seq(1, 0))
    shardsOf(PartitionPlanner.plan(ranges, coalesceThresholdBlockSize = 140, coalesceBinSize = 1000)) shouldBe
      Seq(Seq(0), Seq(1))
  }

  test("no ranges, no tasks") {
    PartitionPlanner.plan(Nil, coalesceThresholdBlockSize = 1000, coalesceBinSize = 100) shouldBe empty
  }
}
