// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.time

/** Time, behind a trait so pacing and back-off can be unit-tested without sleeping. */
trait Clock extends Serializable {
  def nanoTime(): Long
  def sleepNanos(nanos: Long): Unit
}

object SystemClock extends Clock {
  override def nanoTime(): Long = System.nanoTime()
  override def sleepNanos(nanos: Long): Unit =
    if (nanos > 0) Thread.sleep(nanos / 1000000, (nanos % 1000000).toInt)
}
