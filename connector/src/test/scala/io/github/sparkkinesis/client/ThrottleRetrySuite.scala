package io.github.sparkkinesis.client

import scala.collection.mutable

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

class ThrottleRetrySuite extends AnyFunSuite with Matchers {

  private def throttledTimes(n: Int): (() => String, () => Int) = {
    var calls = 0
    (() => {
      calls += 1
      if (calls <= n) throw new ThrottledException(s"throttled $calls", null)
      "listed"
    }, () => calls)
  }

  test("a throttled call is tried again, waiting twice as long each time, up to the longest wait") {
    val waits = mutable.Buffer.empty[Long]
    val (call, calls) = throttledTimes(6)
    ThrottleRetry("ListShards", waits += _)(call()) shouldBe "listed"
    calls() shouldBe 7
    waits shouldBe Seq(100L, 200L, 400L, 800L, 1600L, 2000L)
  }

  test("still throttled after the last attempt: the throttling error goes to the caller") {
    val (call, calls) = throttledTimes(100)
    val e = intercept[ThrottledException](ThrottleRetry("ListShards", _ => ())(call()))
    calls() shouldBe ThrottleRetry.MaxAttempts
    e.getMessage shouldBe s"throttled ${ThrottleRetry.MaxAttempts}"
  }

  test("other failures are not retried") {
    var calls = 0
    intercept[IllegalStateException](ThrottleRetry("ListShards", _ => ()) {
      calls += 1
      throw new IllegalStateException("no")
    })
    calls shouldBe 1
  }
}
