// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import scala.collection.mutable

import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}

/**
 * Where a micro-batch under `maxRecordsPerTrigger`, `maxBytesPerTrigger` or
 * `maxRecordsPerShardPerTrigger` ends: at block boundaries (prefetched blocks are cut to a
 * shard's share of the limits, see prefetch.BlockCut), taking blocks shard by shard, each step
 * from the shard that has the fewest records in the batch so far (ties: the block that arrived
 * first, then shard order), until no shard's next block fits. Shards are those readable from the
 * batch's start, so parents come before their children. A batch holds at least one block, so a
 * single block above a limit (a record larger than maxBytesPerTrigger) is read alone.
 * Blocks without records (a closed shard's end) cost nothing and are taken as they come.
 */
object BatchLimits {

  /** One prefetched block of a shard, as a step the batch may take: where it ends and what it holds. */
  final case class Step(to: ShardPosition, records: Long, bytes: Long, arrivalMillis: Long)

  final case class Limits(maxRecords: Long = Long.MaxValue, maxBytes: Long = Long.MaxValue,
      maxRecordsPerShard: Long = Long.MaxValue)

  /** The end of each shard that the batch moves, from its steps after the batch's start. */
  def ends(steps: Seq[(ShardKey, Seq[Step])], limits: Limits): Map[ShardKey, ShardPosition] = {
    val lanes = steps.collect { case (shard, s) if s.nonEmpty => new Lane(shard, s.toIndexedSeq) }
    val queue = mutable.PriorityQueue.empty[Lane](Lane.FewestFirst.reverse)
    queue ++= lanes
    var records = 0L
    var bytes = 0L
    var taken = false
    while (queue.nonEmpty) {
      val lane = queue.dequeue()
      val step = lane.next
      val fits = step.records == 0 || (records + step.records <= limits.maxRecords &&
        bytes + step.bytes <= limits.maxBytes && lane.records + step.records <= limits.maxRecordsPerShard)
      if (fits || !taken) {
        records += step.records
        bytes += step.bytes
        if (step.records > 0) taken = true
        lane.take()
        if (lane.hasNext) queue += lane
      }
    }
    lanes.iterator.flatMap(lane => lane.end.map(lane.shard -> _)).toMap
  }

  /** A shard's steps and how many of them the batch took. */
  private final class Lane(val shard: ShardKey, steps: IndexedSeq[Step]) {
    private var taken = 0
    var records = 0L

    def next: Step = steps(taken)
    def hasNext: Boolean = taken < steps.size
    def end: Option[ShardPosition] = if (taken == 0) None else Some(steps(taken - 1).to)

    def take(): Unit = {
      records += steps(taken).records
      taken += 1
    }
  }

  private object Lane {
    val FewestFirst: Ordering[Lane] = new Ordering[Lane] {
      override def compare(a: Lane, b: Lane): Int = {
        val byRecords = java.lang.Long.compare(a.records, b.records)
        if (byRecords != 0) byRecords
        else {
          val byArrival = java.lang.Long.compare(a.next.arrivalMillis, b.next.arrivalMillis)
          if (byArrival != 0) byArrival else ShardKey.ordering.compare(a.shard, b.shard)
        }
      }
    }
  }
}
