package io.github.sparkkinesis.efo

import org.reactivestreams.Subscription
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.FakeClock
import io.github.sparkkinesis.client.ShardEvent
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

  test("asks for one event until it knows how large events are, then for as many as there is room for") {
    val (transport, receiver) = open(maxEvents = 4)
    val session = transport.sessions.head
    session.requested shouldBe 1
    receiver.drain() should have size 1
    session.requested shouldBe 5
    receiver.bufferedEventCount shouldBe 4
    transport.pump() // The reader has not drained: nothing more is asked for, nothing arrives.
    session.requested shouldBe 5
    receiver.bufferedEventCount shouldBe 4
    receiver.outstandingRequests shouldBe 0
  }

  test("draining frees room, which is requested again; buffered plus outstanding never exceed the bound") {
    val (transport, receiver) = open(maxEvents = 3)
    val session = transport.sessions.head
    var records = 0
    (1 to 10).foreach { _ =>
      (receiver.bufferedEventCount + receiver.outstandingRequests) should be <= 3L
      records += receiver.drain().map(_.records.size).sum
      session.requested - session.delivered should be <= 3L
    }
    records shouldBe 2 + 9 * 6 // One event of 2 records first, then 3 events of 2 records per drain.
    receiver.totalRequested shouldBe session.requested
    receiver.totalReceived shouldBe session.delivered.toLong
  }

  test("the bytes buffered stay within maxBytes for events no larger than those seen") {
    // Each fake event of 2 records is 20 to 24 bytes (keys and payloads).
    val (transport, receiver) = open(maxEvents = 100, maxBytes = 60)
    val session = transport.sessions.head
    (1 to 20).foreach { _ =>
      val events = receiver.drain()
      events.map(_.bytes).sum should be <= 60L + 24
      session.requested - session.delivered should be <= 100L
    }
    session.delivered should be > 20
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
    receiver.status shouldBe a[ShardSubscription.Failed]
  }

  test("events buffered before the end are still drained after it") {
    val clock = new FakeClock
    val transport = new FakeSubscriptionTransport(clock, recordsPerEvent = 5, eventsPerSubscription = 2)
    val receiver = new ShardSubscription(8, Long.MaxValue, clock)
    transport.put(20)
    transport.subscribe("arn", "s", ShardPosition.TrimHorizon, None, receiver)
    receiver.drain().flatMap(_.records) should have size 5 // The first event; then room for more.
    receiver.status shouldBe ShardSubscription.Completed
    receiver.drain().flatMap(_.records) should have size 5
  }

  test("cancel stops the publisher and ends the subscription as cancelled") {
    val (transport, receiver) = open(maxEvents = 2)
    receiver.cancel()
    transport.sessions.head.cancelled shouldBe true
    receiver.status shouldBe ShardSubscription.Cancelled
    receiver.drain() should have size 1
    transport.sessions.head.requested shouldBe 1 // Draining after the end asks for nothing.
  }
}
