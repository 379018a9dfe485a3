// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.efo

import java.io.{Closeable, IOException}

import scala.util.Random
import scala.util.control.NonFatal

import org.apache.spark.internal.Logging

import io.github.sparkkinesis.client.{
  KinesisRecord, KplCounts, RecordBatch, ShardEvent, SubscriptionHandle, SubscriptionTransport
}
import io.github.sparkkinesis.client.failures.{AwsFailures, BackOff, RetryPolicy, Retryable}
import io.github.sparkkinesis.errors.KinesisErrors
import io.github.sparkkinesis.kpl.RangeCheck
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.reader.ReadNotes
import io.github.sparkkinesis.time.{Clock, SystemClock}

/**
 * How a [[SubscriptionCursor]] buffers and retries (by default, [[RetryPolicy.SubscribeToShard]]).
 * A subscription whose buffer fills is ended and resumed when the reader has drained it (see
 * [[ShardSubscription]]): 16 MiB is 8 s of a shard at Kinesis's 2 MiB/s per consumer.
 */
final case class SubscriptionSettings(
    maxBufferedEvents: Int = 1000,
    maxBufferedBytes: Long = 16L * 1024 * 1024,
    maxConsecutiveFailures: Int = RetryPolicy.SubscribeToShard.maxAttempts,
    backOffBaseMs: Long = RetryPolicy.SubscribeToShard.backOff.firstMs,
    backOffMaxMs: Long = RetryPolicy.SubscribeToShard.backOff.maxMs,
    stallTimeoutMs: Long = 60000L) {
  require(
    maxBufferedEvents >= 1 && maxBufferedBytes >= 1 && maxConsecutiveFailures >= 1 &&
      backOffBaseMs >= 0 && backOffMaxMs >= backOffBaseMs && stallTimeoutMs >= 1, s"invalid $this")

  val backOff: BackOff = BackOff(backOffBaseMs, backOffMaxMs)
}

/**
 * Reads one shard for one enhanced fan-out consumer from a concrete position, the EFO
 * counterpart of polling's [[io.github.sparkkinesis.polling.ShardCursor]]: same shape
 * (`fetch`, `position`, `isEnded`), and meant to live on an executor across micro-batches
 * (ARCHITECTURE.md invariant 4), so one SubscribeToShard stays open per shard and consumer.
 *
 * Events are received by a [[ShardSubscription]] into a bounded buffer (invariant 5); [[fetch]]
 * hands them out. When a subscription ends (Kinesis ends each after 5 minutes, and the
 * connector ends one whose buffer filled because the reader did not take its events) or fails with a retryable error (ResourceInUse, LimitExceeded,
 * internal failures, read time-outs, resets and other I/O errors, or no event for
 * `stallTimeoutMs`), the next [[fetch]] subscribes again from the continuation sequence number
 * of the last event handed out (or the start, before any), after a jittered back-off on
 * failures; `limiter` keeps every SubscribeToShard for the shard and consumer 5 s apart.
 * Other errors, and `maxConsecutiveFailures` failures without an event in between, fail
 * [[fetch]] with a clear error.
 *
 * Not thread-safe: one reader thread calls [[fetch]] and [[close]]; the SDK's threads only fill
 * the buffer.
 */
final class SubscriptionCursor(
    transport: SubscriptionTransport,
    val shard: ShardKey,
    val consumerArn: String,
    start: ShardPosition,
    settings: SubscriptionSettings = SubscriptionSettings(),
    where: String = "",
    limiter: SubscribeLimiter = SubscribeLimiter.global,
    metrics: EfoMetrics = EfoMetrics.global,
    clock: Clock = SystemClock,
    random: Random = new Random(),
    rangeCheck: Option[RangeCheck] = None,
    /** Run before the first subscription: where to start instead, when retention deleted records past the start. */
    startCheck: ShardPosition => Option[ShardPosition] = _ => None) extends Closeable with Logging {

  import ShardSubscription._
  import SubscriptionCursor._

  private final class Live(val receiver: ShardSubscription, val handle: SubscriptionHandle)

  private var handedOut: ShardPosition = start
  private var resumeFrom: ShardPosition = start
  private var current: Option[Live] = None
  private var subscriptionCount = 0
  private var consecutiveFailures = 0
  private var nextAttemptNanos = clock.nanoTime()
  private var lastMillisBehind: Option[Long] = None
  private var closed = false
  private val notes = new ReadNotes(shard)
  // Set by the reader's task, called by the subscriptions' threads: see [[onArrival]].
  @volatile private var arrival: () => Unit = () => ()

  /**
   * Where the next record handed out would come from: the start, `AfterSequence` of the last
   * record handed out, or a `ShardEnd` once the shard is closed and every record was handed out.
   */
  def position: ShardPosition = handedOut

  def isEnded: Boolean = handedOut.isInstanceOf[ShardPosition.ShardEnd]

  /** MillisBehindLatest of the last event handed out; None before the first. */
  def millisBehindLatest: Option[Long] = lastMillisBehind

  /** How many SubscribeToShard calls this cursor made. */
  def subscriptions: Int = subscriptionCount

  /**
   * The records buffered, waiting up to `maxWaitMs` for the next event when none is. Returns as
   * soon as at least one event was received (a caught-up shard sends events without records,
   * with MillisBehindLatest 0), or empty after `maxWaitMs`.
   *
   * The batch's `millisBehindLatest` is that of the last event, or [[UnknownMillisBehind]]
   * before any event; its `nextIterator` is the continuation sequence number (empty before the
   * first event), and None when this batch ended the shard.
   */
  def fetch(maxWaitMs: Long): RecordBatch = {
    require(!closed, s"the subscription cursor of $shard is closed")
    require(!isEnded, s"shard $shard was already read to its end")
    val deadline = clock.nanoTime() + math.max(0L, maxWaitMs) * 1000000L
    while (true) {
      current match {
        case Some(live) =>
          val events = live.receiver.drain()
          if (events.nonEmpty) return handOut(live, events)
          live.receiver.status match {
            case Open =>
              if (live.receiver.starvedNanos >= settings.stallTimeoutMs * 1000000L) {
                live.receiver.cancel()
                live.handle.cancel()
                finish(failed = true)
                failed(new SubscriptionStalledException(
                    s"no event for ${settings.stallTimeoutMs} ms although events were requested"))
              }
            case Completed =>
              finish(failed = false)
              nextAttemptNanos = clock.nanoTime() // Renew at once; the limiter spaces the calls.
            case Full =>
              // Every buffered event was handed out: continue after the last one.
              live.handle.cancel()
              finish(failed = false)
              nextAttemptNanos = clock.nanoTime()
              logDebug(s"The subscription to $shard for $consumerArn filled its buffer while not read; " +
                s"subscribing again from $resumeFrom")
            case Failed(error) =>
              finish(failed = true)
              failed(error)
            case Cancelled =>
              finish(failed = false)
          }
        case None =>
          if (clock.nanoTime() >= nextAttemptNanos) subscribe()
      }
      val now = clock.nanoTime()
      if (now >= deadline) return batch(Nil)
      current match {
        case Some(live) if live.receiver.status == Open && !live.receiver.hasBufferedEvents =>
          val untilStall = settings.stallTimeoutMs * 1000000L - live.receiver.starvedNanos
          live.receiver.awaitSignal(math.max(1L, math.min(deadline - now, untilStall)))
        case Some(_) =>
        case None => clock.sleepNanos(math.min(deadline, nextAttemptNanos) - now)
      }
    }
    throw new IllegalStateException("unreachable")
  }

  /**
   * What this cursor's subscriptions call, from the SDK's threads, when an event with records
   * arrives or a subscription ends: the task reading the cursor now waits for it ([[io.github.sparkkinesis.threads.Doorbell]]).
   */
  def onArrival(call: () => Unit): Unit = arrival = call

  /** Ends the open subscription, if any. Buffered records not handed out are dropped. */
  override def close(): Unit = if (!closed) {
    closed = true
    current.foreach { live =>
      live.receiver.cancel()
      live.handle.cancel()
      finish(failed = false)
    }
  }

  /**
   * Ends the open subscription as if Kinesis had ended it; the next [[fetch]] subscribes again
   * from the last event handed out. For tests and diagnostics.
   */
  private[sparkkinesis] def endSubscription(): Unit = current.foreach { live =>
    live.receiver.cancel()
    live.handle.cancel()
    finish(failed = false)
    nextAttemptNanos = clock.nanoTime()
  }

  private def subscribe(): Unit = {
    val wait = limiter.tryAcquire(consumerArn, shard.shardId)
    if (wait > 0) {
      nextAttemptNanos = clock.nanoTime() + wait
      return
    }
    val renewal = subscriptionCount > 0
    if (!renewal) startCheck(resumeFrom).foreach { from =>
      notes.dataLost()
      resumeFrom = from
      handedOut = from
    }
    subscriptionCount += 1
    metrics.subscribed(renewal)
    if (renewal) logInfo(s"Subscribing again to $shard for $consumerArn from $resumeFrom")
    val receiver = new ShardSubscription(settings.maxBufferedEvents, settings.maxBufferedBytes, clock, () => arrival())
    try {
      val handle = transport.subscribe(consumerArn, shard.shardId, resumeFrom, rangeCheck, receiver)
      current = Some(new Live(receiver, handle))
      SubscriptionCursor.live.incrementAndGet()
    } catch {
      case NonFatal(e) =>
        metrics.ended(failed = true)
        failed(e)
    }
  }

  private def handOut(live: Live, events: Seq[ShardEvent]): RecordBatch = {
    consecutiveFailures = 0
    // A record at or before the last one handed out is a repeat (a resumed subscription must
    // not deliver one, but offsets must stay exact even if it does), and so are the user records
    // of an aggregate the start stopped inside.
    val records = Vector.newBuilder[KinesisRecord]
    var kpl = KplCounts.Zero
    events.foreach { e =>
      // Records come in order: when an event's first is new, all are.
      if (e.records.headOption.forall(_.isPast(handedOut))) {
        records ++= e.records
        e.records.lastOption.foreach(r => handedOut = r.positionAfter)
      } else e.records.foreach { r =>
        if (r.isPast(handedOut)) {
          records += r
          handedOut = r.positionAfter
        }
      }
      e.continuationSequenceNumber.foreach(c => resumeFrom = ShardPosition.AfterSequence(c))
      kpl = kpl + e.kpl
    }
    notes.aggregatesSplit(kpl)
    lastMillisBehind = Some(events.last.millisBehindLatest)
    if (events.exists(_.isShardEnd)) {
      handedOut = ShardPosition.ShardEnd(handedOut.lastSequence)
      live.receiver.cancel()
      live.handle.cancel()
      finish(failed = false)
      logInfo(s"Shard $shard was read to its end; its children: ${events.last.childShards.mkString(", ")}")
    }
    batch(records.result(), kpl)
  }

  private def batch(records: Seq[KinesisRecord], kpl: KplCounts = KplCounts.Zero): RecordBatch = {
    RecordBatch(
      records,
      nextIterator = if (isEnded) None else Some(resumeFrom.lastSequence.getOrElse("")),
      millisBehindLatest = lastMillisBehind.getOrElse(UnknownMillisBehind),
      kpl = kpl,
      dataLossEvents = notes.takeLosses())
  }

  private def finish(failed: Boolean): Unit = {
    if (current.isDefined) SubscriptionCursor.live.decrementAndGet()
    current = None
    metrics.ended(failed)
  }

  /**
   * A subscription failed: retry after a back-off, or fail the read with a clear error. The
   * failure is classified as it came, and shown only as the transport shows it (no credential).
   */
  private def failed(error: Throwable): Unit = {
    consecutiveFailures += 1
    lazy val shown = transport.shown(rootOf(error))
    if (!isRetryable(error)) {
      if (Retryable.resourceNotFound(error)) {
        throw KinesisErrors.efoConsumerDeleted(shard.toString, consumerArn, where, shown)
      }
      throw KinesisErrors.efoSubscriptionFailed(shard.toString, consumerArn, where, shown)
    }
    if (consecutiveFailures >= settings.maxConsecutiveFailures) {
      if (Retryable.resourceInUse(error)) {
        throw KinesisErrors.efoSubscriptionInUse(shard.toString, consumerArn, consecutiveFailures, shown)
      }
      throw KinesisErrors.efoSubscriptionFailed(shard.toString, consumerArn, where, shown)
    }
    val jittered = settings.backOff.delayMs(consecutiveFailures - 1, random.nextDouble())
    nextAttemptNanos = clock.nanoTime() + jittered * 1000000L
    logWarning(s"Subscription to $shard for $consumerArn failed (${describe(shown)}); subscribing again " +
      s"in $jittered ms or more, attempt ${consecutiveFailures + 1} of ${settings.maxConsecutiveFailures}")
  }
}

object SubscriptionCursor {
  /** The batch's millisBehindLatest before any event arrived. */
  val UnknownMillisBehind: Long = -1L

  private val live = new java.util.concurrent.atomic.AtomicInteger()

  /** How many subscriptions the cursors of this JVM hold open (made and not yet ended or cancelled). */
  def openSubscriptions: Int = live.get()

  /**
   * Whether a subscription failure is worth another SubscribeToShard ([[Retryable]]). So is a
   * refusal of expired credentials: a subscription signed just before its credentials were
   * renewed may wait for its HTTP/2 stream past their expiry, and the next one is signed with
   * the renewed ones. Credentials that are not renewed fail it after `maxConsecutiveFailures`.
   */
  def isRetryable(error: Throwable): Boolean = Retryable(error) || Retryable.expiredCredentials(error)

  /** The most telling exception of a failed subscription ([[AwsFailures.mostTelling]]). */
  private[efo] def rootOf(error: Throwable): Throwable = AwsFailures.mostTelling(error)

  private def describe(error: Throwable): String = s"${error.getClass.getSimpleName}: ${error.getMessage}"

}

/** A subscription delivered no event for too long although events were requested. */
final class SubscriptionStalledException(message: String) extends IOException(message)
