// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import io.github.sparkkinesis.client.KplCounts
import io.github.sparkkinesis.efo.SubscriptionCounts
import io.github.sparkkinesis.kpl.RangeCheck
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}

/**
 * What one prefetch task fetched from one shard: the records after `from` up to `to`, kept
 * in the block `blockName` on the executor at `location`. A fetch that only moved the
 * position (a closed shard's end) has no block. Consecutive blocks of a shard chain up: one
 * block's `to` is the next one's `from`.
 */
final case class PrefetchedBlock(
    shard: ShardKey,
    from: ShardPosition,
    to: ShardPosition,
    blockName: Option[String],
    location: Option[String],
    records: Int,
    bytes: Long,
    firstArrivalMillis: Long,
    lastArrivalMillis: Long) {
  def lastSequence: Option[String] = to.lastSequence
}

/**
 * How one shard stood at the end of a prefetch task, for the driver: where the next fetch
 * starts, how far behind the tip the shard was, when the tip was last reached (for
 * Trigger.AvailableNow), and how often Kinesis throttled.
 */
final case class ShardFetchStatus(
    shard: ShardKey,
    position: ShardPosition,
    millisBehindLatest: Long,
    caughtUpAtMillis: Option[Long],
    throttled: Int,
    location: String)

/**
 * A prefetch task's answer: the blocks it stored, how each of its shards stands, the executor
 * it ran on, and (enhanced fan-out) that executor's subscription counts for the query.
 */
final case class PrefetchResult(
    blocks: Seq[PrefetchedBlock],
    status: Seq[ShardFetchStatus],
    location: String,
    subscriptions: Option[SubscriptionCounts] = None,
    kpl: KplCounts = KplCounts.Zero,
    dataLossEvents: Int = 0)

/** One shard to fetch from, starting at `from`; `rangeCheck` is the shard's (KPL aggregates are checked against it). */
final case class ShardFetchRequest(shard: ShardKey, from: ShardPosition, rangeCheck: Option[RangeCheck] = None)
