// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.options.FetchSettings

class PrefetchRoundSuite extends AnyFunSuite with Matchers {

  private def requests(n: Int) = (0 until n).map(i =>
    ShardFetchRequest(ShardKey("s", f"shard-$i%05d"),
      ShardPosition.TrimHorizon))

  private def round(shards: Int, shardsPerTask: Int, slots: Int, first: Boolean = false,
      splitAt: Option[Long] = None): PrefetchRound =
    PrefetchRound.reading(requests(shards), Map.empty, Nil, 1L << 30, splitAt, firstRound = first, slots = slots,
      reportTo = "driver",
      consumers = Map.empty, settings = PrefetchSettings(FetchSettings(100, 2.0, 0L, 1000L), shardsPerTask, 1L << 30),
      streamInstance = "q", streamKey = 1)

  test("a round has shardsPerTask shards a task while the cluster has slots for twice its tasks") {
    val tasks = round(shards = 10, shardsPerTask = 5, slots = 8).tasks
    tasks.map(_.requests.size) shouldBe Seq(5, 5)
  }

  test("with too few task slots, tasks take more shards so a round needs at most half of the slots") {
    round(shards = 1000, shardsPerTask = 5, slots = 2).tasks.map(_.requests.size) shouldBe Seq(1000)
    round(shards = 1000, shardsPerTask = 5, slots = 8).tasks.map(_.requests.size) shouldBe Seq(250, 250, 250, 250)
    round(shards = 10, shardsPerTask = 5, slots = 0).tasks.map(_.requests.size) shouldBe Seq(10)
  }

  test("the first round, which no batch runs beside, may take every slot") {
    round(shards = 1000, shardsPerTask = 5, slots = 2, first = true).tasks.map(_.requests.size) shouldBe Seq(500, 500)
    round(shards = 10, shardsPerTask = 5, slots = 8, first = true).tasks.map(_.requests.size) shouldBe Seq(5, 5)
  }

  test("every shard is in exactly one task, in order") {
    val tasks = round(shards = 1001, shardsPerTask = 5, slots = 6).tasks
    tasks.flatMap(_.requests) shouldBe requests(1001)
    tasks.size shouldBe 3
  }

  test("Trigger.AvailableNow rounds hand over blocks as they read and return at the tip; the first only returns") {
    val later = round(shards = 8, shardsPerTask = 5, slots = 2, splitAt = Some(1000L)).work
    (later.reportTo, later.returnWhenCaughtUp) shouldBe ((Some("driver"), true))
    val first = round(shards = 8, shardsPerTask = 5, slots = 2, first = true, splitAt = Some(1000L)).work
    (first.reportTo, first.returnWhenCaughtUp) shouldBe ((None, true))
    val streaming = round(shards = 8, shardsPerTask = 5, slots = 2).work
    (streaming.reportTo, streaming.returnWhenCaughtUp) shouldBe ((Some("driver"), false))
  }
}
