// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import scala.collection.mutable

import io.github.sparkkinesis.client.KplCounts
import io.github.sparkkinesis.metrics.{ReadFigures, ShardFigures, Throughput}
import io.github.sparkkinesis.offsets.ShardKey

/**
 * The prefetcher's counters (records and bytes fetched, throttling), and the metrics a
 * query's progress shows: lag behind the tip over the open shards, what is buffered, and for
 * enhanced fan-out the subscriptions open and renewed. Not thread-safe; the [[Prefetcher]]
 * guards it.
 */
final class PrefetchMetrics {
  private var recordsFetched = 0L
  private var bytesFetched = 0L
  private var throttleEvents = 0L
  private var kpl = KplCounts.Zero
  private var dataLossEvents = 0L
  // For Spark's metrics system: what was read from each shard the query follows, and from each stream.
  private val fetchedPerShard = mutable.Map.empty[ShardKey, Throughput]
  private val fetchedPerStream = mutable.Map.empty[String, Throughput]

  def fetched(block: PrefetchedBlock): Unit = {
    recordsFetched += block.records
    bytesFetched += block.bytes
    val read = Throughput(block.records.toLong, block.bytes)
    fetchedPerShard(block.shard) = fetchedPerShard.getOrElse(block.shard, Throughput.Zero) + read
    fetchedPerStream(block.shard.stream) = fetchedPerStream.getOrElse(block.shard.stream, Throughput.Zero) + read
  }

  def throttled(events: Int): Unit = throttleEvents += events

  /** What a task's reads found: KPL aggregates passed on whole, user records out of range (and dropped), data lost to retention. */
  def read(counts: KplCounts, dataLoss: Int): Unit = {
    kpl = kpl + counts
    dataLossEvents += dataLoss
  }

  // Spark asks at every trigger, idle ones too: over thousands of shards, worked out only after a change.
  private var lagAt = (-1L, -1L)
  private var lag = Map.empty[String, String]

  private def lagFigures(index: PrefetchIndex, statuses: ShardStatuses): Map[String, String] = {
    val at = (index.version, statuses.version)
    if (at != lagAt) {
      val behind = statuses.millisBehindLatest(shard => !index.fetchedToEnd(shard))
      lag = if (behind.isEmpty) Map.empty
      else Map(
        "avgMsBehindLatest" -> (behind.sum.toDouble / behind.size).toString,
        "maxMsBehindLatest" -> behind.max.toString,
        "minMsBehindLatest" -> behind.min.toString)
      lagAt = at
    }
    lag
  }

  private var figuresAt = (-1L, -1L)
  private var figures = ReadFigures.Empty

  /** Each followed shard's figures and each stream's totals; worked out again only after a change. */
  def readFigures(index: PrefetchIndex, statuses: ShardStatuses): ReadFigures = {
    val at = (index.version, statuses.version)
    if (at != figuresAt) {
      val followed = index.shards
      fetchedPerShard.keys.filterNot(followed).toList.foreach(fetchedPerShard.remove)
      figures = ReadFigures(
        followed.iterator.map { shard =>
          val blocks = index.blocksOf(shard)
          shard -> ShardFigures(statuses.millisBehindLatestOf(shard),
            fetchedPerShard.getOrElse(shard, Throughput.Zero),
            Throughput(blocks.map(_.records.toLong).sum, blocks.map(_.bytes).sum))
        }.toMap,
        fetchedPerStream.toMap)
      figuresAt = at
    }
    figures
  }

  def report(index: PrefetchIndex, statuses: ShardStatuses, readers: Option[ReaderOwnership],
      rounds: Long): Map[String, String] = {
    val lag = lagFigures(index, statuses)
    val efo = readers.map(r =>
      Map(
        "liveSubscriptions" -> r.liveSubscriptions.toString,
        "resubscriptions" -> r.resubscriptions.toString)).getOrElse(Map.empty)
    lag ++ efo ++ Map(
      "prefetchedBytes" -> index.bufferedBytes.toString,
      "prefetchedRecords" -> index.bufferedRecords.toString,
      "fetchedRecords" -> recordsFetched.toString,
      "fetchedBytes" -> bytesFetched.toString,
      "throttleEvents" -> throttleEvents.toString,
      "corruptAggregates" -> kpl.corruptAggregates.toString,
      "outOfRangeRecords" -> kpl.outOfRangeRecords.toString,
      "outOfRangeRecordsDropped" -> kpl.droppedRecords.toString,
      "dataLossEvents" -> dataLossEvents.toString,
      "trackedShards" -> index.shardCount.toString,
      "prefetchRounds" -> rounds.toString)
  }
}
