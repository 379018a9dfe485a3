// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.reader

import java.util.concurrent.Semaphore

import io.github.sparkkinesis.time.Clock

/**
 * What a prefetch task whose shards are pushed their records (enhanced fan-out) waits on while
 * they are all at the tip: any of its readers rings it when records arrive, or its subscription
 * ends or fails, so the task waits for all its shards at once, and for news, rather than waking
 * at each shard's empty events (Kinesis sends them to a caught-up subscription). A ring while
 * the task was reading is kept for its next wait, so none is lost.
 */
final class Doorbell(clock: Clock) {
  private val rings = new Semaphore(0)

  /** Called on the SDK's threads; never blocks. */
  def ring(): Unit = if (rings.availablePermits() == 0) rings.release()

  /** Forgets earlier rings: called before the task reads, which answers them. */
  def reset(): Unit = rings.drainPermits()

  /** Waits for a ring since the last [[reset]], at most `nanos`; true if it rang. */
  def await(nanos: Long): Boolean = nanos > 0 && clock.awaitSignal(rings, nanos)
}
