// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import io.github.sparkkinesis.options.TriggerLimits

/**
 * The most records and bytes a prefetched block holds. A micro-batch ends between blocks
 * (its end offset is a block's end), so with batch limits blocks are cut small enough for a
 * batch to take each shard's fair share: the limit divided among the shards read, but no
 * smaller than [[MinRecords]] records or [[MinBytes]] bytes (when the limit itself is not), so
 * thousands of shards do not make blocks of a record each. A cut may fall inside a KPL
 * aggregate: the block then ends after a user record, at a position with its sub-sequence
 * number, from which the next batch (or a restart) reads on without reading any user record twice.
 */
final case class BlockCut(records: Long, bytes: Long) {
  /** Whether a block holding `count` records of `held` bytes takes no record of `next` bytes more. */
  def full(count: Int, held: Long, next: Long): Boolean = count >= records || held + next > bytes
}

object BlockCut {
  val None: BlockCut = BlockCut(Long.MaxValue, Long.MaxValue)
  val MinRecords = 100L
  val MinBytes: Long = 64L * 1024

  def of(limits: TriggerLimits, shards: Int): BlockCut = {
    val n = math.max(1, shards)
    def share(limit: Option[Long], floor: Long) =
      limit.map(l => math.max(l / n, math.min(l, floor))).getOrElse(Long.MaxValue)
    BlockCut(math.min(share(limits.maxRecords, MinRecords), limits.maxRecordsPerShard.getOrElse(Long.MaxValue)),
      share(limits.maxBytes, MinBytes))
  }
}
