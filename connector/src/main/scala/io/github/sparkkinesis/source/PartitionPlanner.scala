// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import io.github.sparkkinesis.offsets.ShardKey

/**
 * Groups shard ranges into tasks, in two steps, so that a batch's tasks are a function of its
 * offsets (ARCHITECTURE.md invariant 1): anything keyed on a task or a row's place in it (the
 * sink's record ids) names the same rows when the batch runs again after a restart, whatever
 * the prefetcher holds then.
 *
 *  - [[coalesce]], when the batch's end offset is set: normally one task per shard; when
 *    prefetched blocks are small on average (below `coalesceThresholdBlockSize`), ranges whose
 *    blocks live on one executor are packed together toward `coalesceBinSize` bytes a task, so
 *    a batch of many small shards does not become many tiny tasks. Ranges with no prefetched
 *    data are never packed. The answer (shard -> task number, for packed ranges only) is
 *    written in the end offset.
 *  - [[plan]], when the batch is planned (first run or again): the tasks the end offset names,
 *    in shard order of each task's first range, the ranges of a task in shard order.
 */
object PartitionPlanner {

  /** Which ranges share a task: the same number for each range of one task; ranges alone have none. */
  def coalesce(ranges: Seq[ShardRange], coalesceThresholdBlockSize: Long, coalesceBinSize: Long): Map[ShardKey, Int] = {
    val buffered = ranges.filter(_.blocks.nonEmpty)
    var bytes = 0L
    var blocks = 0L
    buffered.foreach { range =>
      bytes += range.bytes
      blocks += range.blocks.size
    }
    val averageBlock = if (blocks == 0) Long.MaxValue else bytes / blocks
    if (averageBlock >= coalesceThresholdBlockSize) Map.empty
    else {
      val shared = pack(buffered, coalesceBinSize).filter(_.size > 1).map(_.map(_.shard).sorted(ShardKey.ordering))
      shared.sortBy(_.head)(ShardKey.ordering).zipWithIndex.flatMap { case (task, n) => task.map(_ -> n) }.toMap
    }
  }

  /**
   * The tasks of a batch whose end offset packed `coalesced` (see [[coalesce]]); `ranges` in
   * shard order. A range that `coalesced` does not name gets a task of its own.
   */
  def plan(ranges: Seq[ShardRange], coalesced: Map[ShardKey, Int]): Seq[KinesisInputPartition] =
    if (coalesced.isEmpty) ranges.map(r => KinesisInputPartition(Seq(r)))
    else {
      val tasks = scala.collection.mutable.LinkedHashMap.empty[Either[Int, ShardKey], Vector[ShardRange]]
      ranges.foreach { range =>
        val task = coalesced.get(range.shard).map(Left(_)).getOrElse(Right(range.shard))
        tasks.update(task, tasks.getOrElse(task, Vector.empty) :+ range)
      }
      tasks.valuesIterator.map(KinesisInputPartition(_)).toVector
    }

  /** Largest first, then by shard; without a key built per comparison (thousands of ranges). */
  private val LargestFirst: Ordering[ShardRange] = new Ordering[ShardRange] {
    override def compare(a: ShardRange, b: ShardRange): Int = {
      val bySize = java.lang.Long.compare(b.bytes, a.bytes)
      if (bySize != 0) bySize else ShardKey.ordering.compare(a.shard, b.shard)
    }
  }

  /** First fit, largest first; ranges of one executor are kept together where possible. */
  private def pack(ranges: Seq[ShardRange], binSize: Long): Seq[Seq[ShardRange]] =
    ranges.groupBy(_.blocks.head.location).values.toSeq.flatMap { sameExecutor =>
      val bins = scala.collection.mutable.ArrayBuffer.empty[Bin]
      sameExecutor.sorted(LargestFirst).foreach { range =>
        val bin = bins.find(_.bytes + range.bytes <= binSize).getOrElse { bins += new Bin; bins.last }
        bin.bytes += range.bytes
        bin.ranges += range
      }
      bins.map(_.ranges.result()).toSeq
    }

  /** One task's ranges while packing, and their bytes. */
  private final class Bin {
    var bytes = 0L
    val ranges = Vector.newBuilder[ShardRange]
  }
}
