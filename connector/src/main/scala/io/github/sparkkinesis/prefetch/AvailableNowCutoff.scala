// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import io.github.sparkkinesis.offsets.ShardKey

/**
 * Trigger.AvailableNow reads the records that arrived before the instant it started. Once
 * that instant is set, prefetch tasks keep the records that arrived from then on in blocks of
 * their own (see [[PrefetchTask]]), so a batch can end exactly at the instant; and a shard
 * counts as read up to it once its chain ends, a task reached its tip after the instant, or a
 * block holds a record that arrived at or after it. Not thread-safe; the [[Prefetcher]] guards it.
 */
final class AvailableNowCutoff {
  private var at: Option[Long] = None

  def cutAt(millis: Long): Unit = at = Some(millis)

  /** Where prefetch tasks split their blocks by arrival time, once Trigger.AvailableNow started. */
  def splitAt: Option[Long] = at
}

object AvailableNowCutoff {

  /** Whether a batch that reads only records that arrived before `beforeMillis` may take `block`. */
  def accepts(beforeMillis: Option[Long])(block: PrefetchedBlock): Boolean =
    beforeMillis.forall(t => block.records == 0 || block.firstArrivalMillis < t)

  /** Whether every record of `shard` that arrived before `millis` has been fetched. */
  def fetchedUntil(shard: ShardKey, millis: Long, index: PrefetchIndex, statuses: ShardStatuses): Boolean =
    index.fetchedToEnd(shard) || statuses.caughtUpSince(shard, millis) ||
      index.blocksOf(shard).exists(b => b.records > 0 && b.lastArrivalMillis >= millis)
}
