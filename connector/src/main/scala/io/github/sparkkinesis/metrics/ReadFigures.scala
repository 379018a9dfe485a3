// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.metrics

import io.github.sparkkinesis.offsets.ShardKey

/** Records and bytes read from Kinesis. */
final case class Throughput(records: Long, bytes: Long) {
  def +(other: Throughput): Throughput = Throughput(records + other.records, bytes + other.bytes)
}

object Throughput {
  val Zero: Throughput = Throughput(0L, 0L)
}

/**
 * How one shard stands for a query: how far its reading is behind the tip (unknown until a
 * read answered), what was read from it since the query started, and what is buffered.
 */
final case class ShardFigures(msBehindLatest: Option[Long], fetched: Throughput, prefetched: Throughput)

/**
 * What a query's metrics source shows: each followed shard, and each stream's totals (what was
 * read counts the shards the query no longer follows too).
 */
final case class ReadFigures(shards: Map[ShardKey, ShardFigures], fetchedPerStream: Map[String, Throughput]) {
  def shardsOf(stream: String): Iterable[ShardFigures] =
    shards.collect { case (shard, figures) if shard.stream == stream => figures }
}

object ReadFigures {
  val Empty: ReadFigures = ReadFigures(Map.empty, Map.empty)
}
