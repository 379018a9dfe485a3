// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.threads

import java.util.concurrent.{CountDownLatch, CyclicBarrier, TimeUnit}
import java.util.concurrent.atomic.{AtomicBoolean, AtomicInteger}

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

class InFlightSuite extends AnyFunSuite with Matchers {

  test("runs up to the limit of calls at once, never more, and answers in the items' order") {
    val running = new AtomicInteger()
    val most = new AtomicInteger()
    // Each call waits until 4 run together: the map only ends if 4 really ran at once.
    val together = new CyclicBarrier(4)
    val answers = InFlight.map((1 to 12).toIndexedSeq, limit = 4) { i =>
      most.accumulateAndGet(running.incrementAndGet(), math.max)
      together.await(10, TimeUnit.SECONDS)
      running.decrementAndGet()
      i * 10
    }
    answers shouldBe (1 to 12).map(_ * 10)
    most.get shouldBe 4
  }

  test("one item, or a limit of 1, runs on the calling thread") {
    val caller = Thread.currentThread()
    InFlight.map(IndexedSeq(1), limit = 8)(_ => Thread.currentThread()) shouldBe IndexedSeq(caller)
    InFlight.map(IndexedSeq(1, 2, 3), limit = 1)(_ => Thread.currentThread()) shouldBe IndexedSeq.fill(3)(caller)
  }

  test("after a failure no item starts, and the first failure in item order is thrown") {
    val called = new AtomicInteger()
    val e = intercept[IllegalStateException] {
      InFlight.map((0 until 1000).toIndexedSeq, limit = 2) { i =>
        called.incrementAndGet()
        if (i == 3 || i == 4) throw new IllegalStateException(s"item $i failed")
        i
      }
    }
    e.getMessage shouldBe "item 3 failed"
    called.get should be < 1000
  }

  test("an interrupted caller interrupts the calls in flight and throws only once they ended") {
    val helperStarted = new CountDownLatch(1)
    val helperEnded = new AtomicBoolean()
    val endedBeforeThrow = new AtomicBoolean()
    val caller = new Thread(() =>
      try {
        InFlight.map(IndexedSeq(0, 1), limit = 2) { i =>
          if (Thread.currentThread().getName.startsWith("kinesis-call-")) {
            helperStarted.countDown()
            try Thread.sleep(60000)
            finally helperEnded.set(true)
          } else {
            helperStarted.await(10, TimeUnit.SECONDS)
            Thread.sleep(60000) // interrupted: this item fails, and the map waits for the other
          }
          i
        }
      } catch {
        case _: InterruptedException => endedBeforeThrow.set(helperEnded.get)
      })
    caller.start()
    helperStarted.await(10, TimeUnit.SECONDS) shouldBe true
    caller.interrupt()
    caller.join(10000)
    caller.isAlive shouldBe false
    endedBeforeThrow.get shouldBe true
  }
}
