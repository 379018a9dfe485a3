// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.efo

import java.util.concurrent.{Semaphore, TimeUnit}

import scala.collection.mutable

import org.reactivestreams.Subscription
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.client.{KinesisRecord, ShardEvent}
import io.github.sparkkinesis.time.SystemClock

/**
 * A subscription between two real threads, as the SDK and a reader use it: a publisher thread
 * delivers as fast as demand allows while the reader waits for signals and drains. Every event
 * must reach the reader once, in order, and demand must stay within its bound.
 */
class ShardSubscriptionThreadsSuite extends AnyFunSuite with Matchers {

  /** Delivers `total` events from its own thread, each as soon as one is requested. */
  private final class ThreadedPublisher(receiver: ShardSubscription, total: Int) extends Subscription {
    private val demand = new Semaphore(0)
    @volatile private var cancelled = false
    @volatile var mostOutstanding = 0

    override def request(n: Long): Unit = {
      demand.release(n.toInt)
      mostOutstanding = math.max(mostOutstanding, demand.availablePermits())
    }

    override def cancel(): Unit = cancelled = true

    val thread = new Thread(() => deliver(), "test-publisher")

    private def deliver(): Unit = {
      receiver.onSubscribe(this)
      var i = 0
      while (i < total && !cancelled) {
        if (demand.tryAcquire(100, TimeUnit.MILLISECONDS)) {
          receiver.onNext(event(i))
          i += 1
        }
      }
      if (!cancelled) receiver.onComplete()
    }
  }

  /** Event i: one 10-byte record, continuing after sequence number i. */
  private def event(i: Int): ShardEvent =
    ShardEvent(Seq(KinesisRecord("k", Array.fill(10)(1.toByte), i.toString, 0L)), Some(i.toString), 0L)

  test("events pushed from the SDK's side while the reader drains arrive once, in order, within the demand bound") {
    val total = 20000
    // A buffer that never fills: a slow reader would end the subscription as Full, which other tests cover.
    val receiver = new ShardSubscription(maxEvents = total + 1, maxBytes = Long.MaxValue, SystemClock)
    val publisher = new ThreadedPublisher(receiver, total)
    publisher.thread.start()
    val seen = mutable.ArrayBuffer.empty[Int]
    val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60)
    while (receiver.status == ShardSubscription.Open && System.nanoTime() < deadline) {
      receiver.awaitSignal(TimeUnit.MILLISECONDS.toNanos(50))
      receiver.drain().foreach(e => seen += e.continuationSequenceNumber.get.toInt)
      receiver.outstandingRequests should be <= ShardSubscription.MaxRequested
    }
    receiver.drain().foreach(e => seen += e.continuationSequenceNumber.get.toInt)
    publisher.thread.join(10000)

    receiver.status shouldBe ShardSubscription.Completed
    seen shouldBe (0 until total)
    receiver.totalReceived shouldBe total.toLong
    publisher.mostOutstanding.toLong should be <= ShardSubscription.MaxRequested
  }
}
