// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.FakeClock

class TriggerPaceSuite extends AnyFunSuite with Matchers {

  test("batches every 10 s: a shard at its tip is read every 2 s") {
    val clock = new FakeClock
    val pace = new TriggerPace(clock)
    (1 to 3).foreach { _ =>
      clock.advanceMillis(10000)
      pace.committed()
    }
    pace.tipFetchPeriodMs(minFetchPeriodMs = 200, maxFetchDurationMs = 10000) shouldBe 2000L
  }

  test("batches one after the other: the minimum period, as before") {
    val clock = new FakeClock
    val pace = new TriggerPace(clock)
    (1 to 3).foreach { _ =>
      clock.advanceMillis(450)
      pace.committed()
    }
    pace.tipFetchPeriodMs(minFetchPeriodMs = 400, maxFetchDurationMs = 10000) shouldBe 400L
  }

  test("an idle query reads less and less often, at most every quarter of maxFetchDuration") {
    val clock = new FakeClock
    val pace = new TriggerPace(clock)
    pace.committed()
    clock.advanceMillis(5000)
    pace.tipFetchPeriodMs(400, 10000) shouldBe 1000L
    clock.advanceMillis(60000)
    pace.tipFetchPeriodMs(400, 10000) shouldBe 2500L
  }

  test("the low-latency settings keep their period") {
    val clock = new FakeClock
    val pace = new TriggerPace(clock)
    clock.advanceMillis(60000)
    pace.tipFetchPeriodMs(minFetchPeriodMs = 210, maxFetchDurationMs = 200) shouldBe 210L
  }
}
