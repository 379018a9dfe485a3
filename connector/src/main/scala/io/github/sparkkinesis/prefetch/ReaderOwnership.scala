// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import scala.collection.mutable

import io.github.sparkkinesis.efo.SubscriptionCounts
import io.github.sparkkinesis.offsets.ShardKey

/**
 * Where the shards' readers live, as the prefetch tasks report it: per shard, the executor
 * whose reader stands where the shard's chain ends, so its next task goes there and continues
 * with that reader (see [[ExecutorCursors]]); per executor, the enhanced fan-out subscriptions
 * it holds ([[SubscriptionReports]]). From these it names the executors that get a task only
 * to close readers: during the query, those holding subscriptions of shards now read elsewhere;
 * when the query stops, every live executor. Not thread-safe; the [[Prefetcher]] guards it.
 */
final class ReaderOwnership {
  private val locations = mutable.Map.empty[ShardKey, String]
  private val subscriptions = new SubscriptionReports
  private var alive = Set.empty[String]

  /** The reader of `shard` that stands where its chain ends is on the executor at `location`. */
  def readerAt(shard: ShardKey, location: String): Unit = locations(shard) = location

  def subscriptionsAt(location: String, counts: SubscriptionCounts): Unit = subscriptions.record(location, counts)

  /** The query no longer reads `shard`. */
  def forget(shard: ShardKey): Unit = locations.remove(shard)

  /** The executors alive now (a lost executor's readers went with it). */
  def executorsAlive(now: Set[String]): Unit = alive = now

  def aliveExecutors: Set[String] = alive

  /** The executor holding each of the `tracked` shards' reader, where one is known. */
  def owners(tracked: Set[ShardKey]): Map[ShardKey, String] =
    locations.filter { case (shard, _) => tracked.contains(shard) }.toMap

  /** Executors to send a task that only closes readers: they hold subscriptions but none of `owners`' shards. */
  def cleanupTargets(owners: Map[ShardKey, String]): Seq[String] = subscriptions.cleanupTargets(owners.values, alive)

  /**
   * Executors other than `except` (the driver) where a stopping query's readers and clients may
   * still be: every live one, polling or not, since any may have run a task of the query.
   */
  def stopTargets(except: String): Seq[String] = alive.toSeq.sorted.filterNot(_ == except)

  def liveSubscriptions: Long = subscriptions.liveSubscriptions(alive)

  def resubscriptions: Long = subscriptions.resubscriptions
}
