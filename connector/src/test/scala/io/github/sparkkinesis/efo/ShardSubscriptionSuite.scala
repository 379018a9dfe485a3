// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.efo

import org.reactivestreams.Subscription
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.FakeClock
import io.github.sparkkinesis.client.{KinesisRecord, ShardEvent}
import io.github.sparkkinesis.offsets.ShardPosition

class ShardSubscriptionSuite extends AnyFunSuite with Matchers {

  private def open(maxEvents: Int, maxBytes: Long = Long.MaxValue, recordsPerEvent: Int = 2)
      : (FakeSubscriptionTransport, ShardSubscription) = {
    val clock = new FakeClock
    val transport = new FakeSubscriptionTransport(clock, recordsPerEvent = recordsPerEvent, heartbeats = false)
    val receiver = new ShardSubscription(maxEvents, maxBytes, clock)
    transport.put(100)
    transport.subscribe("arn", "shardId-000000000000", ShardPosition.TrimHorizon, None, receiver)
    (transport, receiver)
  }

  test("asks ahead for as many events as the buffer holds; a full buffer ends the subscription, keeping its events") {
    val (transport, receiver) = open(maxEvents = 4)
    val session = transport.sessions.head
    session.requested shouldBe 4
    receiver.status shouldBe ShardSubscription.Full
    session.cancelled shouldBe true // The SDK would buffer what Kinesis pushes while nothing is asked for.
    receiver.drain() should have size 4
    receiver.drain() shouldBe empty
    session.requested shouldBe 4 // Draining after the end asks for nothing.
  }

  test("a reader that keeps up keeps the subscription open; buffered plus outstanding never exceed the bound") {
    val clock = new FakeClock
    val transport = new FakeSubscriptionTransport(clock, recordsPerEvent = 2, heartbeats = false)
    val receiver = new ShardSubscription(3, Long.MaxValue, clock)
    transport.subscribe("arn", "shardId-000000000000", ShardPosition.TrimHorizon, None, receiver)
    val session = transport.sessions.head
    var records = 0
    (1 to 10).foreach { _ =>
      transport.put(4) // Two events' worth arrive between drains.
      transport.pump()
      (receiver.bufferedEventCount + receiver.outstandingRequests) shouldBe 3L
      records += receiver.drain().map(_.records.size).sum
      receiver.status shouldBe ShardSubscription.Open
    }
    records shouldBe 40
    session.cancelled shouldBe false
    receiver.totalReceived shouldBe session.delivered.toLong
  }

  test("the reader is woken for records, the shard's end and the subscription's end, not for empty events") {
    var arrivals = 0
    val receiver = new ShardSubscription(100, Long.MaxValue, new FakeClock, () => arrivals += 1)
    receiver.onSubscribe(new Subscription {
      override def request(n: Long): Unit = ()
      override def cancel(): Unit = ()
    })
    val record = KinesisRecord("k", Array[Byte](1), "7", 0L)
    receiver.onNext(ShardEvent(Nil, Some("1"), 0)) // a caught-up shard's empty events
    receiver.onNext(ShardEvent(Nil, Some("2"), 0))
    arrivals shouldBe 0
    receiver.onNext(ShardEvent(Seq(record), Some("7"), 0))
    arrivals shouldBe 1
    receiver.onNext(ShardEvent(Nil, None, 0, Seq("shardId-000000000002"))) // the shard's end
    receiver.onComplete()
    arrivals shouldBe 3
    receiver.drain().map(_.records.size) shouldBe Seq(0, 0, 1, 0) // every event is kept for the reader
  }

  test("the bytes buffered pass maxBytes by at most the event that crossed it, which ends the subscription") {
    // Each fake event of 2 records is 20 to 24 bytes (keys and payloads).
    val (transport, receiver) = open(maxEvents = 100, maxBytes = 600)
    val session = transport.sessions.head
    receiver.status shouldBe ShardSubscription.Full
    session.cancelled shouldBe true
    // Asked for ahead a few at a time, never the whole buffer's worth at once.
    session.delivered should be > ShardSubscription.MaxRequested.toInt
    session.requested should be <= session.delivered + ShardSubscription.MaxRequested
    val bytes = receiver.drain().map(_.bytes).sum
    bytes should be >= 600L
    bytes should be < 600L + 24
  }

  test("events asked for count against maxBytes: one at a time until the first arrives, then as many as fit") {
    val clock = new FakeClock
    val transport = new FakeSubscriptionTransport(clock, recordsPerEvent = 2, heartbeats = false)
    // Events of 2 records are 20 to 24 bytes: 100 bytes hold four or five.
    val receiver = new ShardSubscription(100, 100, clock)
    transport.subscribe("arn", "shardId-000000000000", ShardPosition.TrimHorizon, None, receiver)
    val session = transport.sessions.head
    session.requested shouldBe 1
    var records = 0
    (1 to 10).foreach { _ =>
      transport.put(6)
      transport.pump()
      receiver.outstandingRequests should be >= 1L
      (receiver.bufferedByteCount + receiver.outstandingRequests * 20) should be <= 100L + 24
      records += receiver.drain().map(_.records.size).sum
    }
    records shouldBe 60
    receiver.status shouldBe ShardSubscription.Open
  }

  test("a publisher that ignores request(n) is stopped instead of filling memory") {
    val receiver = new ShardSubscription(1, Long.MaxValue, new FakeClock)
    var cancelled = false
    receiver.onSubscribe(new Subscription {
      override def request(n: Long): Unit = ()
      override def cancel(): Unit = cancelled = true
    })
    receiver.onNext(ShardEvent(Nil, Some("1"), 0))
    receiver.onNext(ShardEvent(Nil, Some("2"), 0))
    cancelled shouldBe true
    receiver.bufferedEventCount shouldBe 1
    receiver.status shouldBe ShardSubscription.Full
  }

  test("events buffered before the end are still drained after it") {
    val clock = new FakeClock
    val transport = new FakeSubscriptionTransport(clock, recordsPerEvent = 5, eventsPerSubscription = 2)
    val receiver = new ShardSubscription(8, Long.MaxValue, clock)
    transport.put(20)
    transport.subscribe("arn", "s", ShardPosition.TrimHorizon, None, receiver)
    receiver.status shouldBe ShardSubscription.Completed
    receiver.drain().flatMap(_.records) should have size 10
    receiver.drain() shouldBe empty
  }

  test("cancel stops the publisher and ends the subscription as cancelled") {
    val clock = new FakeClock
    val transport = new FakeSubscriptionTransport(clock, heartbeats = false)
    val receiver = new ShardSubscription(2, Long.MaxValue, clock)
    transport.subscribe("arn", "s", ShardPosition.TrimHorizon, None, receiver)
    transport.put(1)
    transport.pump()
    receiver.cancel()
    transport.sessions.head.cancelled shouldBe true
    receiver.status shouldBe ShardSubscription.Cancelled
    receiver.drain() should have size 1
    transport.sessions.head.requested shouldBe 2 // Draining after the end asks for nothing.
  }
}
