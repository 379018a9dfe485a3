// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import scala.collection.mutable

import io.github.sparkkinesis.offsets.ShardKey

/**
 * The driver's latest word on each shard from the prefetch tasks: how far behind the tip it
 * was, and when a task last reached the tip (Trigger.AvailableNow waits for that). Only a
 * status that stands where the shard's chain ends counts; an older answer is ignored. Not
 * thread-safe; the [[Prefetcher]] guards it.
 */
final class ShardStatuses {
  private val latest = mutable.Map.empty[ShardKey, ShardFetchStatus]
  private var changes = 0L

  /** Grows with every status taken or forgotten: while it stays, [[millisBehindLatest]] answers as before. */
  def version: Long = changes

  /**
   * Takes a task's status of a shard; `current` says it stands where the shard's chain ends.
   * Returns the throttling new since the shard's last status: a reader counts its throttling
   * for its whole life, and a new reader starts again from 0.
   */
  def update(status: ShardFetchStatus, current: Boolean): Int = {
    val before = latest.get(status.shard).map(_.throttled).getOrElse(0)
    if (current) {
      latest(status.shard) = status
      changes += 1
    }
    if (status.throttled >= before) status.throttled - before else status.throttled
  }

  def forget(shard: ShardKey): Unit = if (latest.remove(shard).isDefined) changes += 1

  /** Whether a task reached the tip of `shard` at or after `millis`. */
  def caughtUpSince(shard: ShardKey, millis: Long): Boolean =
    latest.get(shard).exists(_.caughtUpAtMillis.exists(_ >= millis))

  /** How far behind the tip `shard` is, when known. */
  def millisBehindLatestOf(shard: ShardKey): Option[Long] =
    latest.get(shard).map(_.millisBehindLatest).filter(_ != Long.MaxValue)

  /** How far behind the tip each shard `open` accepts is, for those where it is known. */
  def millisBehindLatest(open: ShardKey => Boolean): Seq[Long] =
    latest.valuesIterator.filter(s => open(s.shard)).map(_.millisBehindLatest).filter(_ != Long.MaxValue).toList
}
