// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.efo

import scala.collection.mutable

import org.reactivestreams.{Subscriber, Subscription}

import io.github.sparkkinesis.client.ShardEvent
import io.github.sparkkinesis.threads.{Doorbell, Strand}
import io.github.sparkkinesis.time.Clock

/**
 * The receiving end of one SubscribeToShard call: events go into a buffer of at most
 * `maxEvents` events and `maxBytes` bytes (plus the one event that crossed it), requested
 * (`request(n)`) ahead of the reader while the buffer has room.
 *
 * Demand alone does not bound memory: the SDK's HTTP layer reads ahead of it (a `make bench`
 * EFO run held 1.3 GB of pushed data its event decoder had not asked for). So events are asked
 * for ahead only as far as they fit the room left in `maxBytes`, judged by the largest event so
 * far (one at a time until the first arrives; at most [[MaxRequested]]), as the SDK decodes
 * what is asked for as it arrives and an event may hold 10,000 records. A buffer that fills
 * ends the subscription at once, as [[Full]]: the reader drains what is buffered and subscribes
 * again after the last event it took, so what the reader does not take stays in Kinesis
 * (ARCHITECTURE.md invariant 5).
 *
 * Threads (ARCHITECTURE.md, "Who owns what", an EFO subscription): every field is owned by a
 * [[Strand]]. The SDK's signals (onSubscribe, onNext, onError, onComplete) and the reader's
 * calls ([[drain]], [[cancel]], the queries) are its tasks, so `request(n)` and `cancel()` go
 * upstream from its tasks alone, one at a time (Reactive Streams rule 2.7), and a publisher
 * that delivers from inside `request(n)` finds its event queued behind the task that asked.
 * The reader waits for a signal outside the strand, on `signals`. `onArrival` is called (on the
 * strand) for an event with records or the end of the shard, and when the subscription ends:
 * not for the empty events of a caught-up shard, which need no reader to wake.
 */
private[efo] final class ShardSubscription(maxEvents: Int, maxBytes: Long, clock: Clock,
    onArrival: () => Unit = () => ()) extends Subscriber[ShardEvent] {
  import ShardSubscription._

  require(maxEvents >= 1, s"maxEvents must be at least 1, got $maxEvents")

  // A task that throws (a publisher's request or cancel) ends the subscription with that error.
  private val strand = new Strand("shard-subscription", e => end(Failed(e)))
  // Rung by the strand's tasks when an event or the end arrives; the reader waits on it.
  private val signals = new Doorbell(clock)

  // ---- owned by the strand ----
  private var subscription: Subscription = _
  private val buffer = mutable.Queue.empty[ShardEvent]
  private var bufferedBytes = 0L
  private var outstanding = 0L
  private var state: State = Open
  private var cancelled = false
  private var lastSignalNanos = clock.nanoTime()
  private var largestEvent = 0L
  private var requestedTotal = 0L
  private var receivedTotal = 0L

  // ---- Subscriber (SDK threads) ----

  override def onSubscribe(s: Subscription): Unit = strand.run { () =>
    subscription = s
    lastSignalNanos = clock.nanoTime()
    if (cancelled) s.cancel() else topUp()
  }

  override def onNext(event: ShardEvent): Unit = strand.run { () =>
    if (state != Open) {
      // Ended: what still comes is not kept.
    } else if (outstanding <= 0) {
      // A publisher that ignores request(n) would make the buffer unbounded: stop it.
      end(Failed(new IllegalStateException("the event stream sent more events than were requested")))
      cancelled = true
      stopUpstream()
    } else {
      outstanding -= 1
      receivedTotal += 1
      buffer.enqueue(event)
      bufferedBytes += event.bytes
      largestEvent = math.max(largestEvent, event.bytes)
      lastSignalNanos = clock.nanoTime()
      signal()
      if (buffer.size >= maxEvents || bufferedBytes >= maxBytes) {
        state = Full
        stopUpstream()
        onArrival()
      } else {
        if (event.records.nonEmpty || event.isShardEnd) onArrival()
        topUp()
      }
    }
  }

  override def onError(t: Throwable): Unit = strand.run(() => end(Failed(t)))

  override def onComplete(): Unit = strand.run(() => end(Completed))

  // ---- the reader ----

  /** Takes every buffered event, oldest first, then asks for as many as there is room for. */
  def drain(): Seq[ShardEvent] = strand.ask {
    val events = buffer.toList
    buffer.clear()
    bufferedBytes = 0L
    if (events.nonEmpty) topUp()
    events
  }

  /** Open, or how it ended. Events buffered before the end are still there to [[drain]]. */
  def status: State = strand.ask(state)

  def hasBufferedEvents: Boolean = strand.ask(buffer.nonEmpty)

  /** Nanoseconds since the last event or the start, while events were requested and none came. */
  def starvedNanos: Long = strand.ask {
    if (state == Open && outstanding > 0 && subscription != null) clock.nanoTime() - lastSignalNanos else 0L
  }

  /** Events requested and not received; events received. For tests and logs. */
  def outstandingRequests: Long = strand.ask(outstanding)
  def totalRequested: Long = strand.ask(requestedTotal)
  def totalReceived: Long = strand.ask(receivedTotal)
  def bufferedEventCount: Int = strand.ask(buffer.size)
  def bufferedByteCount: Long = strand.ask(bufferedBytes)

  /** Waits until an event or the end arrives, for at most `nanos`, as the clock waits. */
  def awaitSignal(nanos: Long): Unit = if (nanos > 0) {
    // Signals from before the check are stale: the check sees what they announced.
    signals.reset()
    if (strand.ask(buffer.isEmpty && state == Open)) signals.await(nanos)
  }

  /** Stops the subscription; buffered events stay. Ends it as Cancelled unless it had ended. */
  def cancel(): Unit = strand.ask {
    cancelled = true
    end(Cancelled)
    stopUpstream()
  }

  // ---- the strand's ----

  private def end(how: State): Unit = if (state == Open) {
    state = how
    signal()
    onArrival()
  }

  private def signal(): Unit = signals.ring()

  private def stopUpstream(): Unit = if (subscription != null) subscription.cancel()

  /**
   * Asks for as many events as the buffer has room for, beyond those already asked for: the SDK
   * decodes what is asked for as it arrives, so what is asked for counts against `maxBytes` too.
   */
  private def topUp(): Unit = {
    val room = if (state != Open || subscription == null) 0L
    else math.min(math.min(maxEvents - buffer.size, MaxRequested), eventsThatFit) - outstanding
    if (room > 0) {
      outstanding += room
      requestedTotal += room
      subscription.request(room)
    }
  }

  /** Events that fit the bytes left, at the largest size seen; at least one, so reading goes on. */
  private def eventsThatFit: Long =
    if (largestEvent == 0L) 1L else math.max(1L, (maxBytes - bufferedBytes) / largestEvent)
}

private[efo] object ShardSubscription {
  /** Events asked for and not yet received, at most. */
  val MaxRequested = 8L

  sealed trait State
  case object Open extends State
  case object Completed extends State
  /** The buffer filled: ended by the connector, so that the SDK does not buffer what Kinesis keeps pushing. */
  case object Full extends State
  final case class Failed(error: Throwable) extends State
  case object Cancelled extends State
}
