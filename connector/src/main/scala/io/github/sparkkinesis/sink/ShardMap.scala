// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import io.github.sparkkinesis.client.ShardDescription
import io.github.sparkkinesis.kpl.HashKeyRange

/**
 * An open shard a record is bound for; `index` is its place in the stream's shard map. One
 * instance per shard and map, compared by identity: rows queue by it, and a new map re-queues
 * every row.
 */
final class TargetShard(val shardId: String, val index: Int, val range: HashKeyRange) {
  /** A hash key in the shard's range, so an aggregate put under it lands on this shard. */
  def explicitHashKey: String = range.start.toString
}

/**
 * The open shards of a stream by hash-key range, as ListShards gave them when the writer
 * asked: which shard a record goes to, and so which records one aggregate may hold. It goes
 * stale when the stream is resharded; the batcher notices from where Kinesis stored a put.
 */
final class ShardMap private (open: IndexedSeq[TargetShard], all: Map[String, HashKeyRange]) {
  private val starts = open.map(_.range.start).toArray

  def shardCount: Int = open.size

  /** The open shard whose range holds `hashKey`; None only if ListShards left a gap. */
  def shardFor(hashKey: BigInt): Option[TargetShard] = {
    // The last shard starting at or below the key.
    var lo = 0
    var hi = starts.length - 1
    var found = -1
    while (lo <= hi) {
      val mid = (lo + hi) >>> 1
      if (starts(mid) <= hashKey) { found = mid; lo = mid + 1 }
      else hi = mid - 1
    }
    if (found >= 0 && open(found).range.contains(hashKey)) Some(open(found)) else None
  }

  /** The range of any shard ListShards named, closed ones included. */
  def rangeOf(shardId: String): Option[HashKeyRange] = all.get(shardId)
}

object ShardMap {
  def apply(shards: Seq[ShardDescription]): ShardMap = {
    val open = shards.filter(s => !s.closed && s.hashKeyRange.isDefined).sortBy(_.hashKeyRange.get.start)
    new ShardMap(
      open.zipWithIndex.map { case (s, i) => new TargetShard(s.shardId, i, s.hashKeyRange.get) }.toIndexedSeq,
      shards.flatMap(s => s.hashKeyRange.map(s.shardId -> _)).toMap)
  }
}
