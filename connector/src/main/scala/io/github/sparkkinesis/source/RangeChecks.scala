// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import io.github.sparkkinesis.client.ShardDescription
import io.github.sparkkinesis.kpl.{HashKeyRange, OutOfRangePolicy, RangeCheck}
import io.github.sparkkinesis.offsets.ShardKey

/** How the user records of each listed shard's aggregates are checked (option `outOfRangeUserRecords`). */
object RangeChecks {

  /**
   * Each listed shard's range with the ranges of its parents among `knownRanges` (a parent that
   * expired before it was ever listed is unknown, and a split cannot be shown without it).
   */
  def of(listed: Map[ShardKey, ShardDescription], knownRanges: Map[ShardKey, HashKeyRange],
      policy: OutOfRangePolicy): Map[ShardKey, RangeCheck] =
    listed.flatMap { case (key, d) =>
      d.hashKeyRange.map { range =>
        key -> RangeCheck(range, d.parents.flatMap(p => knownRanges.get(ShardKey(key.stream, p))), policy)
      }
    }

  /**
   * The hash-key range of every listed shard, and of every parent split into listed shards that
   * Kinesis no longer lists (it lists a closed shard only for the retention period): the two
   * children of a split share their parent's range, so it is theirs together. A query started
   * again after its parent expired then checks a child's records as the run that listed the
   * parent did. A merge's parents are not needed: no record outside the child's range is inside
   * either of them, so `dropAfterSplit` keeps it either way.
   */
  def ranges(listed: Map[ShardKey, ShardDescription]): Map[ShardKey, HashKeyRange] = {
    val own = listed.flatMap { case (key, d) => d.hashKeyRange.map(key -> _) }
    val splitInto = listed.toSeq.collect {
      case (key, d) if d.adjacentParentShardId.isEmpty && d.parentShardId.isDefined =>
        ShardKey(key.stream, d.parentShardId.get) -> own.get(key)
    }.groupBy(_._1).collect { case (parent, children) if !own.contains(parent) => parent -> children.map(_._2) }
    val derived = splitInto.collect {
      case (parent, children) if children.size == 2 && children.forall(_.isDefined) =>
        val ranges = children.flatten
        parent -> HashKeyRange(ranges.map(_.start).min, ranges.map(_.end).max)
    }
    derived ++ own
  }
}
