// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source.realtime

import io.github.sparkkinesis.client.KinesisRecord
import io.github.sparkkinesis.efo.{EfoMetrics, SubscriptionCursor}
import io.github.sparkkinesis.errors.{KinesisConnectorException, KinesisErrors}
import io.github.sparkkinesis.offsets.ShardPosition
import io.github.sparkkinesis.polling.ShardCursor
import io.github.sparkkinesis.time.Clock

/**
 * How a real-time task reads its shard directly, without prefetching: polling's GetRecords
 * cursor or an enhanced fan-out subscription. Either waits for records at most until the
 * task's deadline, so Spark's `nextWithTimeout` ends on time.
 */
private[realtime] trait ShardFeed {
  /** After the last record fetched; a `ShardEnd` once the shard is closed and read to its end. */
  def position: ShardPosition

  def isEnded: Boolean = position.isInstanceOf[ShardPosition.ShardEnd]

  /** The next records, after waiting at most `maxWaitNanos` for some (none when none came). */
  def fetch(maxWaitNanos: Long): Seq[KinesisRecord]

  /** MillisBehindLatest of the last answer; None before the first. */
  def millisBehindLatest: Option[Long]

  /** How often Kinesis throttled this feed's calls. */
  def throttleEvents: Int

  /** Records this feed found deleted by retention before it read them, with `failOnDataLoss` false. */
  def dataLossEvents: Long

  /**
   * Enhanced fan-out: the consumer was deregistered behind the query's back. The feed reads no
   * more; the driver registers the consumer again for the next batch, whose task reads on.
   */
  def consumerDeleted: Boolean = false

  /** SubscribeToShard calls made (EFO): all, those that renewed or retried one, and whether one is open. */
  def subscriptions: SubscriptionStats = SubscriptionStats.None

  def close(): Unit
}

final case class SubscriptionStats(calls: Long, renewals: Long, open: Boolean)

object SubscriptionStats {
  val None: SubscriptionStats = SubscriptionStats(0, 0, open = false)
}

/**
 * GetRecords in a loop, paced by the cursor (`minFetchPeriod`, `maxFetchRate`, 5 calls/s per
 * shard, back-off after throttling). When the next call is not allowed before the deadline,
 * it sleeps until the deadline instead, so an idle shard never holds a task past its end; nor
 * does a throttled one: the cursor gives up waiting out its back-off at the deadline.
 */
private[realtime] final class PollingFeed(cursor: ShardCursor, clock: Clock) extends ShardFeed {
  private var behind: Option[Long] = None
  private var losses = 0L

  override def position: ShardPosition = cursor.position

  override def fetch(maxWaitNanos: Long): Seq[KinesisRecord] =
    if (cursor.nanosUntilNextCall > maxWaitNanos) {
      clock.sleepNanos(maxWaitNanos)
      Nil
    } else {
      // A throttled call's back-off past the deadline ends the wait there: the next batch goes on.
      val batch = cursor.fetchUntil(clock.nanoTime() + maxWaitNanos)
      behind = Some(batch.millisBehindLatest)
      losses += batch.dataLossEvents
      batch.records
    }

  override def dataLossEvents: Long = losses

  override def millisBehindLatest: Option[Long] = behind

  override def throttleEvents: Int = cursor.throttleEvents

  override def close(): Unit = cursor.close()
}

/**
 * An enhanced fan-out subscription held by the task (and by the executor between batches):
 * the cursor renews it when Kinesis ends it after 5 minutes or it fails, within the 5-second
 * repeat rule and 1 call/s per shard (ARCHITECTURE.md invariant 4).
 */
private[realtime] final class SubscriptionFeed(cursor: SubscriptionCursor, metrics: EfoMetrics) extends ShardFeed {
  private var deleted = false
  private var losses = 0L

  override def position: ShardPosition = cursor.position

  // Rounded up: a wait of less than a millisecond must still wait, not spin.
  override def fetch(maxWaitNanos: Long): Seq[KinesisRecord] =
    if (maxWaitNanos <= 0 || deleted) Nil
    else
      try {
        val batch = cursor.fetch((maxWaitNanos + 999999L) / 1000000L)
        losses += batch.dataLossEvents
        batch.records
      } catch {
        case e: KinesisConnectorException if KinesisErrors.isEfoConsumerDeleted(e) =>
          deleted = true
          Nil
      }

  override def consumerDeleted: Boolean = deleted

  override def dataLossEvents: Long = losses

  override def millisBehindLatest: Option[Long] = cursor.millisBehindLatest

  override def throttleEvents: Int = 0 // a subscription is pushed to, never throttled per call

  override def subscriptions: SubscriptionStats =
    SubscriptionStats(metrics.subscribeCalls, metrics.resubscriptions, metrics.liveSubscriptions > 0)

  override def close(): Unit = cursor.close()
}

/**
 * The feed of a task that started after its query stopped (a batch the stop could not cancel):
 * it calls Kinesis for nothing and waits out the batch like an idle shard, standing where the
 * batch starts.
 */
private[realtime] final class StoppedQueryFeed(start: ShardPosition, clock: Clock) extends ShardFeed {
  override def position: ShardPosition = start

  override def fetch(maxWaitNanos: Long): Seq[KinesisRecord] = {
    clock.sleepNanos(maxWaitNanos)
    Nil
  }

  override def millisBehindLatest: Option[Long] = None

  override def throttleEvents: Int = 0

  override def dataLossEvents: Long = 0

  override def close(): Unit = ()
}
