// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.metrics.{ShardFigures, Throughput}
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}

class PrefetchMetricsSuite extends AnyFunSuite with Matchers {
  private val first = ShardKey("clicks", "shardId-000000000000")
  private val second = ShardKey("clicks", "shardId-000000000001")

  private def status(shard: ShardKey, behind: Long) =
    ShardFetchStatus(shard, ShardPosition.TrimHorizon, behind, None, 0, "executor")

  private def lag(metrics: PrefetchMetrics, index: PrefetchIndex, statuses: ShardStatuses) =
    metrics.report(index, statuses, None, rounds = 1).filter(_._1.endsWith("MsBehindLatest"))

  test("the lag over the open shards follows every new status, and leaves out a shard read to its end") {
    val (metrics, index, statuses) = (new PrefetchMetrics, new PrefetchIndex, new ShardStatuses)
    Seq(first, second).foreach(index.reset(_, ShardPosition.TrimHorizon))
    lag(metrics, index, statuses) shouldBe empty

    statuses.update(status(first, 1000), current = true)
    statuses.update(status(second, 3000), current = true)
    lag(metrics, index, statuses) shouldBe Map(
      "avgMsBehindLatest" -> "2000.0", "maxMsBehindLatest" -> "3000", "minMsBehindLatest" -> "1000")
    // Asked again with nothing changed: the same answer.
    lag(metrics, index, statuses)("maxMsBehindLatest") shouldBe "3000"

    statuses.update(status(second, 500), current = true)
    lag(metrics, index, statuses)("maxMsBehindLatest") shouldBe "1000"

    index.append(PrefetchedBlock(first, ShardPosition.TrimHorizon, ShardPosition.ShardEnd(None), None, None, 0, 0L, 0L,
        0L)) shouldBe true
    lag(metrics, index, statuses) shouldBe Map(
      "avgMsBehindLatest" -> "500.0", "maxMsBehindLatest" -> "500", "minMsBehindLatest" -> "500")

    statuses.forget(second)
    lag(metrics, index, statuses) shouldBe empty
  }

  test(
    "the figures of each followed shard: lag, what was read and what is buffered; the stream's totals keep a shard no longer followed") {
    val (metrics, index, statuses) = (new PrefetchMetrics, new PrefetchIndex, new ShardStatuses)
    Seq(first, second).foreach(index.reset(_, ShardPosition.TrimHorizon))
    val block =
      PrefetchedBlock(first, ShardPosition.TrimHorizon, ShardPosition.AfterSequence("1"), Some("b"), Some("e"),
        3, 300L, 0L, 0L)
    index.append(block) shouldBe true
    metrics.fetched(block)
    statuses.update(status(first, 2000), current = true)

    val figures = metrics.readFigures(index, statuses)
    figures.shards(first) shouldBe ShardFigures(Some(2000L), Throughput(3, 300), Throughput(3, 300))
    figures.shards(second) shouldBe ShardFigures(None, Throughput.Zero, Throughput.Zero)
    figures.fetchedPerStream shouldBe Map("clicks" -> Throughput(3, 300))

    index.release(first, ShardPosition.AfterSequence("1"))
    metrics.readFigures(index, statuses).shards(first).prefetched shouldBe Throughput.Zero
    index.remove(first)
    val later = metrics.readFigures(index, statuses)
    later.shards.keySet shouldBe Set(second)
    later.fetchedPerStream shouldBe Map("clicks" -> Throughput(3, 300))
  }
}
