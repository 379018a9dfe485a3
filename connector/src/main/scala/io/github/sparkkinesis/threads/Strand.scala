// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.threads

import java.util.concurrent.{CompletableFuture, ConcurrentLinkedQueue, ExecutionException}
import java.util.concurrent.atomic.AtomicReference

import scala.util.control.NonFatal

/**
 * Runs tasks one at a time, in the order they were handed in, on whichever thread hands one in
 * while none runs; that thread also runs what other threads hand in meanwhile. State that only
 * the tasks of one strand touch has one owner, the strand: it needs no lock, and each task sees
 * what the tasks before it did (the queue orders them). A task handed in from inside a task
 * (a publisher that answers `request(n)` at once) runs after it, never inside it.
 *
 * Tasks are short and never wait: a task that waited for another of its strand would wait for
 * ever, so [[ask]] refuses to be called from one. `onError` gets what a task threw, as a task
 * of the strand, so the owner can record it. A fatal error (out of memory, a class that cannot
 * load) goes to `onError` too and the tasks queued behind it still run, so no thread waiting on
 * the strand waits for ever; the thread that ran it then rethrows it.
 */
final class Strand(name: String, onError: Throwable => Unit) {
  private val tasks = new ConcurrentLinkedQueue[Runnable]()
  // The thread running the strand's tasks; null while none runs.
  private val runner = new AtomicReference[Thread]()

  /** Hands a task in; runs it (and what others hand in meanwhile) on this thread if none runs. */
  def run(task: Runnable): Unit = {
    tasks.add(task)
    val me = Thread.currentThread()
    var fatal: Option[Throwable] = None
    // After letting go, look again: a task handed in while this thread was letting go is ours to run.
    while (!tasks.isEmpty && runner.get() != me && runner.compareAndSet(null, me)) {
      try fatal = fatal.orElse(runAll())
      finally runner.set(null)
    }
    fatal.foreach(e => throw e)
  }

  /** Runs `body` as a task and returns what it returned (or throws what it threw), waiting if others run. */
  def ask[T](body: => T): T = {
    if (runner.get() eq Thread.currentThread()) {
      throw new IllegalStateException(s"a task of the $name strand waited for another of its tasks")
    }
    val answer = new CompletableFuture[T]()
    run { () =>
      try answer.complete(body)
      catch { case e: Throwable => answer.completeExceptionally(e) }
    }
    try answer.get()
    catch { case e: ExecutionException => throw e.getCause }
  }

  /** How many tasks wait their turn. For tests. */
  private[sparkkinesis] def queued: Int = tasks.size

  /** Runs every queued task; returns the first fatal error one threw (or `onError` did), for the caller to rethrow. */
  private def runAll(): Option[Throwable] = {
    var fatal: Option[Throwable] = None
    def report(e: Throwable): Unit =
      try onError(e)
      catch { case t: Throwable => fatal = fatal.orElse(Some(t)) }
    var task = tasks.poll()
    while (task != null) {
      try task.run()
      catch {
        case NonFatal(e) => report(e)
        case e: Throwable =>
          fatal = fatal.orElse(Some(e))
          report(e)
      }
      task = tasks.poll()
    }
    fatal
  }
}
