// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.threads

import java.util.concurrent.{CountDownLatch, Executors, TimeUnit}
import java.util.concurrent.atomic.AtomicInteger

import scala.collection.mutable

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

class StrandSuite extends AnyFunSuite with Matchers {

  test("tasks from many threads run one at a time, each thread's in the order handed in") {
    val strand = new Strand("test", e => throw e)
    val running = new AtomicInteger()
    var mostAtOnce = 0 // The strand's own: only its tasks touch it.
    val seen = mutable.Map.empty[Int, mutable.ArrayBuffer[Int]]
    val pool = Executors.newFixedThreadPool(4)
    val start = new CountDownLatch(1)
    (0 until 4).foreach { t =>
      pool.execute { () =>
        start.await()
        (0 until 5000).foreach { n =>
          strand.run { () =>
            mostAtOnce = math.max(mostAtOnce, running.incrementAndGet())
            seen.getOrElseUpdate(t, mutable.ArrayBuffer.empty) += n
            running.decrementAndGet()
          }
        }
      }
    }
    start.countDown()
    pool.shutdown()
    pool.awaitTermination(30, TimeUnit.SECONDS) shouldBe true
    strand.ask(mostAtOnce) shouldBe 1
    strand.ask(seen.toMap.map { case (t, ns) => t -> ns.toList }) shouldBe
      (0 until 4).map(_ -> (0 until 5000).toList).toMap
  }

  test("a task handed in from inside a task runs after it, not inside it") {
    val strand = new Strand("test", e => throw e)
    val order = mutable.ArrayBuffer.empty[String]
    strand.run { () =>
      order += "outer starts"
      strand.run(() => order += "inner")
      order += "outer ends"
    }
    order shouldBe Seq("outer starts", "outer ends", "inner")
  }

  test("ask answers with what the task returned or threw; a task may not ask") {
    val strand = new Strand("test", e => throw e)
    strand.ask(41 + 1) shouldBe 42
    val boom = new IllegalArgumentException("boom")
    (intercept[IllegalArgumentException](strand.ask(throw boom)) should be).theSameInstanceAs(boom)
    val refused = strand.ask(intercept[IllegalStateException](strand.ask(1)))
    refused.getMessage should include("test strand")
  }

  test("what a task throws goes to onError, and later tasks still run") {
    val errors = mutable.ArrayBuffer.empty[Throwable]
    val strand = new Strand("test", errors += _)
    val boom = new RuntimeException("boom")
    strand.run(() => throw boom)
    strand.ask(errors.toList) shouldBe List(boom)
  }

  test("a fatal error in a task reaches onError, and the tasks queued behind it still run") {
    val errors = new java.util.concurrent.ConcurrentLinkedQueue[Throwable]()
    val strand = new Strand("test", errors.add(_))
    val running = new CountDownLatch(1)
    val goOn = new CountDownLatch(1)
    val pool = Executors.newFixedThreadPool(2)
    try {
      val fatal = new StackOverflowError("deep")
      val failing: Runnable = { () =>
        running.countDown()
        goOn.await()
        throw fatal
      }
      val first = pool.submit((() => strand.run(failing)): Runnable)
      running.await()
      // Handed in while the failing task runs: the thread running the strand must run it.
      val second = pool.submit(() => strand.ask(42))
      while (strand.queued == 0) Thread.`yield`()
      goOn.countDown()
      second.get(10, TimeUnit.SECONDS) shouldBe 42
      val thrown = intercept[java.util.concurrent.ExecutionException](first.get(10, TimeUnit.SECONDS))
      (thrown.getCause should be).theSameInstanceAs(fatal)
      (errors.peek() should be).theSameInstanceAs(fatal)
    } finally pool.shutdownNow()
  }
}
