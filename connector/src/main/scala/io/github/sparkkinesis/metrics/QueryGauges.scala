// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.metrics

import scala.util.control.NonFatal

import com.codahale.metrics.{Gauge, MetricRegistry}

import org.apache.spark.internal.Logging

import io.github.sparkkinesis.offsets.ShardKey

/**
 * One Kinesis source of a query in Spark's metrics system: a gauge per figure of each shard it
 * follows, and each stream's totals, under `<query>.<stream>.` in the connector's registry
 * ([[org.apache.spark.sql.kinesis.KinesisMetricsSource]]). The gauges read `figures` when a
 * sink asks; [[follow]] adds and removes shards' gauges as the query's shards change, and
 * [[close]] removes every gauge, so nothing stays once the query stops.
 */
final class QueryGauges(registry: MetricRegistry, query: String, figures: () => ReadFigures) extends Logging {
  import QueryGauges._

  private var registered = Set.empty[String]
  private var shards = Set.empty[ShardKey]
  private var streams = Set.empty[String]

  /** Shows the gauges of `followed`, and of their streams; those of other shards go. */
  def follow(followed: Set[ShardKey]): Unit = synchronized {
    (shards -- followed).foreach(shard => ShardMetrics.foreach(m => remove(shardName(shard, m.name))))
    (followed -- shards).foreach { shard =>
      ShardMetrics.foreach(m => add(shardName(shard, m.name), () => figures().shards.get(shard).map(m.value)))
    }
    (followed.map(_.stream) -- streams).foreach { stream =>
      StreamMetrics.foreach(m =>
        add(MetricRegistry.name(query, stream, m.name), () => Some(m.value(figures(), stream))))
    }
    shards = followed
    streams ++= followed.map(_.stream)
  }

  def close(): Unit = synchronized {
    registered.foreach(registry.remove)
    registered = Set.empty
    shards = Set.empty
    streams = Set.empty
  }

  private def shardName(shard: ShardKey, metric: String) =
    MetricRegistry.name(query, shard.stream, shard.shardId, metric)

  private def add(name: String, value: () => Option[Long]): Unit =
    try {
      // A gauge without a value (a shard no read has answered for yet) shows -1.
      registry.register(name, new Gauge[Long] { override def getValue: Long = value().getOrElse(-1L) })
      registered += name
    } catch {
      // The same stream read twice in one query: the first reader's gauges stay.
      case NonFatal(e) => logWarning(s"Metric $name is registered already; not published again", e)
    }

  private def remove(name: String): Unit = if (registered(name)) {
    registry.remove(name)
    registered -= name
  }
}

object QueryGauges {
  final case class ShardMetric(name: String, value: ShardFigures => Long)
  /** Each shard's gauges: `<query>.<stream>.<shardId>.<name>`. */
  val ShardMetrics = Seq(
    ShardMetric("msBehindLatest", _.msBehindLatest.getOrElse(-1L)),
    ShardMetric("fetchedRecords", _.fetched.records),
    ShardMetric("fetchedBytes", _.fetched.bytes),
    ShardMetric("prefetchedRecords", _.prefetched.records),
    ShardMetric("prefetchedBytes", _.prefetched.bytes))

  final case class StreamMetric(name: String, value: (ReadFigures, String) => Long)
  /** Each stream's gauges: `<query>.<stream>.<name>`. */
  val StreamMetrics = Seq(
    StreamMetric("maxMsBehindLatest", (f, s) => f.shardsOf(s).flatMap(_.msBehindLatest).foldLeft(-1L)(math.max)),
    StreamMetric("fetchedRecords", (f, s) => f.fetchedPerStream.getOrElse(s, Throughput.Zero).records),
    StreamMetric("fetchedBytes", (f, s) => f.fetchedPerStream.getOrElse(s, Throughput.Zero).bytes),
    StreamMetric("prefetchedRecords", (f, s) => f.shardsOf(s).map(_.prefetched.records).sum),
    StreamMetric("trackedShards", (f, s) => f.shardsOf(s).size.toLong))
}
