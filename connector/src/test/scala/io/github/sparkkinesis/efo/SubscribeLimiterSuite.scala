// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.efo

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.FakeClock

class SubscribeLimiterSuite extends AnyFunSuite with Matchers {

  test("a turn is given at most every 5 s per consumer and shard; a refused try takes nothing") {
    val clock = new FakeClock
    val limiter = new SubscribeLimiter(5000, clock)
    limiter.tryAcquire("c", "s0") shouldBe 0L
    clock.advanceMillis(1000)
    limiter.tryAcquire("c", "s0") shouldBe 4000L * 1000000L
    clock.advanceMillis(3999)
    limiter.tryAcquire("c", "s0") shouldBe 1000000L
    clock.advanceMillis(1)
    limiter.tryAcquire("c", "s0") shouldBe 0L
    limiter.tryAcquire("c", "s1") shouldBe 0L
    limiter.tryAcquire("d", "s0") shouldBe 0L
  }

  test("forgetting a consumer frees its turns") {
    val clock = new FakeClock
    val limiter = new SubscribeLimiter(5000, clock)
    limiter.tryAcquire("c", "s0")
    limiter.forget("c")
    limiter.tryAcquire("c", "s0") shouldBe 0L
  }

  test("turns older than the spacing are dropped: the limiter holds the last 5 s, not every shard ever seen") {
    val clock = new FakeClock
    val limiter = new SubscribeLimiter(5000, clock)
    // Ten thousand shards subscribed to over 50 s, a thousand in each 5 s.
    (0 until 10000).foreach { i =>
      limiter.tryAcquire("c", s"s$i") shouldBe 0L
      if (i % 1000 == 999) clock.advanceMillis(5000)
    }
    limiter.size should be <= 3000
    limiter.prune()
    limiter.size shouldBe 0
    // Pruning drops nothing that still holds a call back.
    limiter.tryAcquire("c", "s0") shouldBe 0L
    limiter.prune()
    limiter.tryAcquire("c", "s0") should be > 0L
  }
}
