// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.efo

import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicLong

/**
 * Counters of enhanced fan-out readers (one query's on one executor, see [[EfoMetrics.of]]),
 * for the source's metrics: how many subscriptions are open now, and how many SubscribeToShard
 * calls renewed or retried one.
 */
final class EfoMetrics {
  private val live = new AtomicLong()
  private val calls = new AtomicLong()
  private val renewals = new AtomicLong()
  private val failures = new AtomicLong()

  /** Subscriptions opened and not yet ended. */
  def liveSubscriptions: Long = live.get

  /** Every SubscribeToShard call. */
  def subscribeCalls: Long = calls.get

  /** SubscribeToShard calls that continued a reader's earlier subscription (renewal or retry). */
  def resubscriptions: Long = renewals.get

  /** Subscriptions that ended in an error (each was retried or surfaced). */
  def subscriptionFailures: Long = failures.get

  /** The counts now, numbered so the driver can tell the latest report of an executor. */
  def snapshot(): SubscriptionCounts =
    SubscriptionCounts(liveSubscriptions, resubscriptions, EfoMetrics.reports.incrementAndGet())

  private[efo] def subscribed(renewal: Boolean): Unit = {
    calls.incrementAndGet()
    live.incrementAndGet()
    if (renewal) renewals.incrementAndGet()
  }

  private[efo] def ended(failed: Boolean): Unit = {
    live.decrementAndGet()
    if (failed) failures.incrementAndGet()
  }
}

object EfoMetrics {
  /** The counters of readers not tied to a query (the subscription probe). */
  val global: EfoMetrics = new EfoMetrics

  private val reports = new AtomicLong()
  private val perQuery = new ConcurrentHashMap[String, EfoMetrics]()

  /** The counters of one query's readers in this JVM, by the prefetcher's stream instance. */
  def of(streamInstance: String): EfoMetrics = perQuery.computeIfAbsent(streamInstance, _ => new EfoMetrics)

  /** The query stopped: its counters go. */
  def forget(streamInstance: String): Unit = perQuery.remove(streamInstance)
}

/**
 * One executor's subscription counts for one query, as a prefetch task reports them: open
 * subscriptions now (a gauge) and re-subscriptions so far (a counter). `report` grows with every
 * snapshot taken in the executor's JVM, so the latest of several reports is known.
 */
final case class SubscriptionCounts(liveSubscriptions: Long, resubscriptions: Long, report: Long)
