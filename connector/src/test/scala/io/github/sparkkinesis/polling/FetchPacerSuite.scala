// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.polling

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.FakeClock

class FetchPacerSuite extends AnyFunSuite with Matchers {

  /** Makes `calls` paced calls returning `bytes` each; returns the time of each call in ms. */
  private def callTimes(pacer: FetchPacer, clock: FakeClock, calls: Int, bytes: Long): Seq[Long] =
    (1 to calls).map { _ =>
      pacer.awaitTurn()
      val at = clock.nowMillis
      pacer.recordFetch(bytes)
      at
    }

  test("the first call does not wait") {
    val clock = new FakeClock
    new FetchPacer(400, 1.0, clock).awaitTurn()
    clock.totalSleptMillis shouldBe 0L
  }

  test("consecutive calls are at least minFetchPeriod apart") {
    val clock = new FakeClock
    val times = callTimes(new FetchPacer(200, 2.0, clock), clock, calls = 11, bytes = 1000)
    all(times.sliding(2).map { case Seq(a, b) => b - a }.toSeq) should be >= 200L
    // Five calls a second at most: the service limit per shard.
    (times.last - times.head) should be >= 2000L
  }

  test("time spent between calls counts towards the wait") {
    val clock = new FakeClock
    val pacer = new FetchPacer(400, 2.0, clock)
    pacer.awaitTurn()
    pacer.recordFetch(1000)
    clock.advanceMillis(300) // The caller processed the records meanwhile.
    pacer.awaitTurn()
    clock.totalSleptMillis shouldBe 100L
    clock.advanceMillis(500)
    pacer.recordFetch(1000)
    clock.advanceMillis(500)
    pacer.awaitTurn()
    clock.totalSleptMillis shouldBe 100L
  }

  test("a large fetch delays the next call to keep maxFetchRate: 2 MiB at 1.0 (MiB/s, as Kinesis counts) waits 2 s") {
    val clock = new FakeClock
    val pacer = new FetchPacer(200, 1.0, clock)
    pacer.awaitTurn()
    pacer.recordFetch(2L * 1024 * 1024)
    pacer.awaitTurn()
    clock.totalSleptMillis shouldBe 2000L
  }

  test("the time a large call itself took counts towards its rate gap, not the minimum period") {
    val clock = new FakeClock
    val pacer = new FetchPacer(200, 1.0, clock)
    pacer.awaitTurn()
    clock.advanceMillis(500) // the call took half a second to return 2 MiB
    pacer.recordFetch(2L * 1024 * 1024)
    pacer.awaitTurn()
    clock.totalSleptMillis shouldBe 1500L
    clock.advanceMillis(50) // a small call: the minimum period counts from its end
    pacer.recordFetch(1000)
    pacer.awaitTurn()
    clock.totalSleptMillis shouldBe 1700L
  }

  test("the average rate stays within maxFetchRate over many fetches") {
    val clock = new FakeClock
    val times = callTimes(new FetchPacer(200, 2.0, clock), clock, calls = 21, bytes = 1024 * 1024)
    // 20 MiB fetched before the last call at 2 MiB/s: at least 10 s.
    (times.last - times.head) should be >= 10000L
  }

  test("backOff delays the next call") {
    val clock = new FakeClock
    val pacer = new FetchPacer(200, 2.0, clock)
    pacer.awaitTurn()
    pacer.recordFetch(1000)
    pacer.backOff(1500)
    pacer.awaitTurn()
    clock.totalSleptMillis shouldBe 1500L
  }

  test("backOff before any call delays the first call") {
    val clock = new FakeClock
    val pacer = new FetchPacer(200, 2.0, clock)
    pacer.backOff(1000)
    pacer.awaitTurn()
    clock.totalSleptMillis shouldBe 1000L
  }

  test("backOff never shortens a longer wait already due") {
    val clock = new FakeClock
    val pacer = new FetchPacer(200, 1.0, clock)
    pacer.awaitTurn()
    pacer.recordFetch(3L * 1024 * 1024)
    pacer.backOff(500)
    pacer.awaitTurn()
    clock.totalSleptMillis shouldBe 3000L
  }

  /** Gaps between `calls` paced calls, each at the tip when `atTip(n)` (n from 0). */
  private def gapsAt(pacer: FetchPacer, clock: FakeClock, calls: Int)(atTip: Int => Boolean): Seq[Long] =
    (0 until calls).map { n =>
      pacer.awaitTurn()
      val at = clock.nowMillis
      pacer.recordFetch(1000, atTip(n))
      at
    }.sliding(2).map { case Seq(a, b) => b - a }.toSeq

  test("a shard at its tip is called less often, up to the period the query needs; one behind at full pace again") {
    val clock = new FakeClock
    val pacer = new FetchPacer(200, 2.0, clock)
    pacer.paceAtTip(1000)
    // Calls 0-4 at the tip, 5 behind it, 6-7 at the tip again.
    gapsAt(pacer, clock, calls = 8)(n => n != 5) shouldBe Seq(400L, 800L, 1000L, 1000L, 1000L, 200L, 400L)
  }

  test("without a tip period, a shard at its tip is called every minFetchPeriod") {
    val clock = new FakeClock
    gapsAt(new FetchPacer(200, 2.0, clock), clock, calls = 5)(_ => true) shouldBe Seq.fill(4)(200L)
  }

  test("a shorter tip period applies from the next call") {
    val clock = new FakeClock
    val pacer = new FetchPacer(200, 2.0, clock)
    pacer.paceAtTip(2000)
    gapsAt(pacer, clock, calls = 6)(_ => true).last shouldBe 2000L
    pacer.paceAtTip(300)
    gapsAt(pacer, clock, calls = 3)(_ => true) shouldBe Seq(300L, 300L)
  }
}
