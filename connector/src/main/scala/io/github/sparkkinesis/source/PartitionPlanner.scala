// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import io.github.sparkkinesis.offsets.ShardKey

/**
 * Groups shard ranges into tasks. Normally one task per shard; when prefetched blocks are
 * small on average (below `coalesceThresholdBlockSize`), ranges are packed together toward
 * `coalesceBinSize` bytes a task, so a batch of many small shards does not become many tiny
 * tasks. Ranges with no prefetched data are never packed: each re-reads Kinesis on its own.
 */
object PartitionPlanner {

  def plan(
      ranges: Seq[ShardRange], coalesceThresholdBlockSize: Long, coalesceBinSize: Long): Seq[KinesisInputPartition] = {
    val (buffered, unbuffered) = ranges.partition(_.blocks.nonEmpty)
    var bytes = 0L
    var blocks = 0L
    buffered.foreach { range =>
      bytes += range.bytes
      blocks += range.blocks.size
    }
    val averageBlock = if (blocks == 0) Long.MaxValue else bytes / blocks
    val packed =
      if (averageBlock >= coalesceThresholdBlockSize) buffered.map(r => Seq(r))
      else pack(buffered, coalesceBinSize)
    (packed ++ unbuffered.map(r => Seq(r))).map(KinesisInputPartition(_))
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
