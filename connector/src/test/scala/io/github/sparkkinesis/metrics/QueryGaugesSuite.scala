// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.metrics

import scala.jdk.CollectionConverters._

import com.codahale.metrics.MetricRegistry
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.offsets.ShardKey

class QueryGaugesSuite extends AnyFunSuite with Matchers {
  private val first = ShardKey("clicks", "shardId-000000000000")
  private val second = ShardKey("clicks", "shardId-000000000001")

  private def values(registry: MetricRegistry): Map[String, Any] =
    registry.getGauges.asScala.map { case (name, gauge) => name -> gauge.getValue }.toMap

  private val figures = ReadFigures(
    Map(
      first -> ShardFigures(Some(1500L), Throughput(10, 1000), Throughput(4, 400)),
      second -> ShardFigures(None, Throughput(5, 500), Throughput.Zero)),
    Map("clicks" -> Throughput(20, 2000)))

  test("a gauge per figure of each followed shard and of its stream, reading the figures when asked") {
    val registry = new MetricRegistry
    var now = figures
    val gauges = new QueryGauges(registry, "q1", () => now)
    gauges.follow(Set(first, second))
    val shown = values(registry)
    shown("q1.clicks.shardId-000000000000.msBehindLatest") shouldBe 1500L
    shown("q1.clicks.shardId-000000000000.fetchedRecords") shouldBe 10L
    shown("q1.clicks.shardId-000000000000.fetchedBytes") shouldBe 1000L
    shown("q1.clicks.shardId-000000000000.prefetchedRecords") shouldBe 4L
    shown("q1.clicks.shardId-000000000001.msBehindLatest") shouldBe -1L // no read answered yet
    shown("q1.clicks.maxMsBehindLatest") shouldBe 1500L
    shown("q1.clicks.fetchedRecords") shouldBe 20L // closed shards' records count too
    shown("q1.clicks.trackedShards") shouldBe 2L

    now =
      figures.copy(shards = figures.shards.updated(second, ShardFigures(Some(9000L), Throughput.Zero, Throughput.Zero)))
    values(registry)("q1.clicks.maxMsBehindLatest") shouldBe 9000L
  }

  test("a shard no longer followed loses its gauges, and closing removes every gauge") {
    val registry = new MetricRegistry
    val gauges = new QueryGauges(registry, "q1", () => figures)
    gauges.follow(Set(first, second))
    gauges.follow(Set(second))
    values(registry).keySet.filter(_.contains("shardId-000000000000")) shouldBe empty
    values(registry).keySet should contain("q1.clicks.shardId-000000000001.msBehindLatest")
    gauges.close()
    registry.getMetrics shouldBe empty
  }

  test("two queries reading the same stream keep their own gauges, and one stopping leaves the other's") {
    val registry = new MetricRegistry
    val one = new QueryGauges(registry, "q1", () => figures)
    val other = new QueryGauges(registry, "q10", () => figures)
    one.follow(Set(first))
    other.follow(Set(first))
    one.close()
    values(registry).keySet should not be empty
    values(registry).keySet.foreach(_ should startWith("q10."))
  }
}
