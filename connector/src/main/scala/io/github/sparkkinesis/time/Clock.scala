// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.time

import java.util.concurrent.{Semaphore, TimeUnit}

/** Time, behind a trait so pacing and back-off can be unit-tested without sleeping. */
trait Clock extends Serializable {
  def nanoTime(): Long
  def sleepNanos(nanos: Long): Unit

  /**
   * Waits until `signal` has a permit (taking it) or `nanos` pass; true if it was signalled.
   * A clock a test drives takes a permit that is there and otherwise moves time on: its
   * signals come synchronously, so nothing could arrive while it waited.
   */
  def awaitSignal(signal: Semaphore, nanos: Long): Boolean =
    signal.tryAcquire() || {
      sleepNanos(nanos)
      false
    }
}

object SystemClock extends Clock {
  override def nanoTime(): Long = System.nanoTime()
  override def sleepNanos(nanos: Long): Unit =
    if (nanos > 0) Thread.sleep(nanos / 1000000, (nanos % 1000000).toInt)
  override def awaitSignal(signal: Semaphore, nanos: Long): Boolean =
    signal.tryAcquire(math.max(0L, nanos), TimeUnit.NANOSECONDS)
}
