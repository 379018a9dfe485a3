// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import scala.collection.mutable

import io.github.sparkkinesis.efo.SubscriptionCounts

/**
 * The driver's view of one query's enhanced fan-out subscriptions, from the counts its prefetch
 * tasks report per executor: the latest report of each executor counts. Live subscriptions add
 * up over the executors still alive (a lost executor's subscriptions went with it);
 * re-subscriptions add up over every executor that ever reported (a counter never goes down).
 *
 * It also says which executors should be sent a task only to close readers: those that hold
 * subscriptions but own no shard any more, so no prefetch task would reach them. Each gets at
 * most [[SubscriptionReports.MaxCleanupAttempts]] such tasks until it reports again (a task may
 * run elsewhere if the executor is busy). Not thread-safe; the [[Prefetcher]] guards it.
 */
final class SubscriptionReports {
  private val latest = mutable.Map.empty[String, SubscriptionCounts]
  private val cleanupsSent = mutable.Map.empty[String, Int]

  def record(location: String, counts: SubscriptionCounts): Unit = {
    if (latest.get(location).forall(_.report < counts.report)) latest(location) = counts
    cleanupsSent.remove(location)
  }

  def liveSubscriptions(alive: Set[String]): Long =
    latest.iterator.collect { case (location, c) if alive.contains(location) => c.liveSubscriptions }.sum

  def resubscriptions: Long = latest.valuesIterator.map(_.resubscriptions).sum

  /** Alive executors holding subscriptions but none of `owners`' shards; counts each as sent a task. */
  def cleanupTargets(owners: Iterable[String], alive: Set[String]): Seq[String] = {
    val owning = owners.toSet
    val targets = latest.collect {
      case (location, c)
          if c.liveSubscriptions > 0 && alive.contains(location) && !owning.contains(location) &&
            cleanupsSent.getOrElse(location, 0) < SubscriptionReports.MaxCleanupAttempts => location
    }.toSeq.sorted
    targets.foreach(t => cleanupsSent(t) = cleanupsSent.getOrElse(t, 0) + 1)
    targets
  }

  /** Executors that reported and are still alive: where a stopped query's readers may be. */
  def executors(alive: Set[String]): Seq[String] = latest.keys.filter(alive.contains).toSeq.sorted
}

object SubscriptionReports {
  val MaxCleanupAttempts = 3
}
