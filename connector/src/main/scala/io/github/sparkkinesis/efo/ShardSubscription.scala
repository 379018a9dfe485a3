// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.efo

import java.util.concurrent.TimeUnit
import java.util.concurrent.locks.ReentrantLock

import scala.collection.mutable

import org.reactivestreams.{Subscriber, Subscription}

import io.github.sparkkinesis.client.ShardEvent
import io.github.sparkkinesis.time.{Clock, SystemClock}

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
 * Signals arrive on the SDK's threads; [[drain]] and [[cancel]] are called by the reader.
 */
private[efo] final class ShardSubscription(maxEvents: Int, maxBytes: Long, clock: Clock)
  extends Subscriber[ShardEvent] {
  import ShardSubscription._

  require(maxEvents >= 1, s"maxEvents must be at least 1, got $maxEvents")

  private val lock = new ReentrantLock()
  private val changed = lock.newCondition()
  // Reactive Streams rule 2.7: request and cancel are called serially; never under `lock`,
  // as a publisher may deliver synchronously from inside request().
  private val requestLock = new Object

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

  override def onSubscribe(s: Subscription): Unit = {
    val cancelNow = withLock {
      subscription = s
      lastSignalNanos = clock.nanoTime()
      cancelled
    }
    if (cancelNow) requestLock.synchronized(s.cancel()) else topUp()
  }

  override def onNext(event: ShardEvent): Unit = {
    val (overflow, filled) = withLock {
      if (state != Open) {
        (false, false)
      } else if (outstanding <= 0) {
        (true, false)
      } else {
        outstanding -= 1
        receivedTotal += 1
        buffer.enqueue(event)
        bufferedBytes += event.bytes
        largestEvent = math.max(largestEvent, event.bytes)
        lastSignalNanos = clock.nanoTime()
        val full = buffer.size >= maxEvents || bufferedBytes >= maxBytes
        if (full) state = Full
        changed.signalAll()
        (false, full)
      }
    }
    if (overflow) {
      // A publisher that ignores request(n) would make the buffer unbounded: stop it.
      onError(new IllegalStateException("the event stream sent more events than were requested"))
      cancel()
    } else if (filled) {
      stopUpstream()
    } else {
      topUp()
    }
  }

  override def onError(t: Throwable): Unit = end(Failed(t))

  override def onComplete(): Unit = end(Completed)

  private def end(how: State): Unit = withLock {
    if (state == Open) {
      state = how
      changed.signalAll()
    }
  }

  // ---- the reader ----

  /** Takes every buffered event, oldest first, then asks for as many as there is room for. */
  def drain(): Seq[ShardEvent] = {
    val events = withLock {
      val all = buffer.toList
      buffer.clear()
      bufferedBytes = 0L
      all
    }
    if (events.nonEmpty) topUp()
    events
  }

  /** Open, or how it ended. Events buffered before the end are still there to [[drain]]. */
  def status: State = withLock(state)

  def hasBufferedEvents: Boolean = withLock(buffer.nonEmpty)

  /** Nanoseconds since the last event or the start, while events were requested and none came. */
  def starvedNanos: Long = withLock {
    if (state == Open && outstanding > 0 && subscription != null) clock.nanoTime() - lastSignalNanos else 0L
  }

  /** Events requested and not received; events received. For tests and logs. */
  def outstandingRequests: Long = withLock(outstanding)
  def totalRequested: Long = withLock(requestedTotal)
  def totalReceived: Long = withLock(receivedTotal)
  def bufferedEventCount: Int = withLock(buffer.size)
  def bufferedByteCount: Long = withLock(bufferedBytes)

  /**
   * Waits until an event or the end arrives, for at most `nanos`. Test clocks move time on
   * instead of blocking, as their publishers deliver synchronously.
   */
  def awaitSignal(nanos: Long): Unit = if (nanos > 0) {
    if (clock eq SystemClock) {
      withLock {
        if (buffer.isEmpty && state == Open) changed.await(nanos, TimeUnit.NANOSECONDS)
      }
    } else {
      clock.sleepNanos(nanos)
    }
  }

  /** Stops the subscription; buffered events stay. Ends it as Cancelled unless it had ended. */
  def cancel(): Unit = {
    withLock {
      cancelled = true
      if (state == Open) {
        state = Cancelled
        changed.signalAll()
      }
    }
    stopUpstream()
  }

  private def stopUpstream(): Unit = {
    val s = withLock(subscription)
    if (s != null) requestLock.synchronized(s.cancel())
  }

  /**
   * Asks for as many events as the buffer has room for, beyond those already asked for: the SDK
   * decodes what is asked for as it arrives, so what is asked for counts against `maxBytes` too.
   */
  private def topUp(): Unit = requestLock.synchronized {
    val (s, n) = withLock {
      val room = if (state != Open || subscription == null) 0L
      else math.min(math.min(maxEvents - buffer.size, MaxRequested), eventsThatFit) - outstanding
      if (room > 0) {
        outstanding += room
        requestedTotal += room
      }
      (subscription, room)
    }
    if (n > 0) s.request(n)
  }

  /** Events that fit the bytes left, at the largest size seen; at least one, so reading goes on. */
  private def eventsThatFit: Long =
    if (largestEvent == 0L) 1L else math.max(1L, (maxBytes - bufferedBytes) / largestEvent)

  private def withLock[T](body: => T): T = {
    lock.lock()
    try body
    finally lock.unlock()
  }
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
