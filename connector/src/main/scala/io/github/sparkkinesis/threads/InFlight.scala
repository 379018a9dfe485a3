// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.threads

import java.util.concurrent.{ConcurrentHashMap, CountDownLatch, Executors}
import java.util.concurrent.atomic.{AtomicBoolean, AtomicInteger}

/**
 * Blocking calls, one per item, with up to `limit` of them in flight: the calling thread takes
 * items too, helped by threads of a pool the JVM shares (`kinesis-call-<n>`, started as needed,
 * kept a minute when idle). A task reading many shards then waits for Kinesis once per round
 * trip, not once per shard.
 *
 * Results come back in the items' order. After a failure no item starts; once the items in
 * flight have ended, the first failure in item order is thrown. When the calling thread is
 * interrupted (Spark cancelling the task), the helpers are interrupted and waited for, so that
 * no call still runs on what the caller hands back when it throws.
 */
object InFlight {
  private val pool = Executors.newCachedThreadPool(new DaemonThreads("kinesis-call-", numbered = true))

  def map[A, B](items: IndexedSeq[A], limit: Int)(call: A => B): IndexedSeq[B] = {
    if (items.size <= 1 || limit <= 1) return items.map(call)
    val results = new Array[Any](items.size)
    val failures = new Array[Throwable](items.size)
    val next = new AtomicInteger()
    val stop = new AtomicBoolean()
    val running = ConcurrentHashMap.newKeySet[Thread]()

    val caller = Thread.currentThread()
    var callerInterrupted = false

    def takeItems(): Unit = {
      var i = next.getAndIncrement()
      while (i < items.size && !stop.get) {
        try results(i) = call(items(i))
        catch {
          case t: Throwable =>
            failures(i) = t
            stop.set(true)
            // The SDK answers an interrupt with an exception of its own, and keeps the flag set.
            if (Thread.currentThread() eq caller) {
              callerInterrupted = t.isInstanceOf[InterruptedException] || caller.isInterrupted
            }
        }
        i = next.getAndIncrement()
      }
    }

    val helpers = math.min(limit, items.size) - 1
    val ended = new CountDownLatch(helpers)
    (1 to helpers).foreach { _ =>
      pool.execute { () =>
        running.add(Thread.currentThread())
        try takeItems()
        finally {
          running.remove(Thread.currentThread())
          ended.countDown()
        }
      }
    }
    takeItems()
    if (!callerInterrupted) {
      try ended.await()
      catch { case _: InterruptedException => callerInterrupted = true }
    }
    if (callerInterrupted) {
      stop.set(true)
      running.forEach(_.interrupt())
      awaitUninterruptibly(ended)
      Thread.interrupted() // cleared, as throwing InterruptedException does
      throw new InterruptedException("interrupted while calls were in flight")
    }
    failures.find(_ != null).foreach(throw _)
    results.toIndexedSeq.asInstanceOf[IndexedSeq[B]]
  }

  private def awaitUninterruptibly(latch: CountDownLatch): Unit =
    while (latch.getCount > 0) {
      try latch.await()
      catch { case _: InterruptedException => () } // the caller throws one when all have ended
    }
}
