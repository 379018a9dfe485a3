package io.github.sparkkinesis.efo

import java.util.concurrent.atomic.AtomicLong

/**
 * Counters of the enhanced fan-out readers in one JVM, for the source's metrics: how many
 * subscriptions are open now, and how many SubscribeToShard calls renewed or retried one.
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
  /** The counters of every reader in this JVM. */
  val global: EfoMetrics = new EfoMetrics
}
