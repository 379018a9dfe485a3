// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.threads

import java.util.concurrent.Semaphore

import io.github.sparkkinesis.time.Clock

/**
 * A wake-up a waiting thread cannot miss: [[ring]] from any thread, never blocking; [[reset]]
 * before looking at what the rings announce, then [[await]]: a ring after the reset ends the
 * wait at once. An EFO subscription's reader waits on one for its events; a prefetch task whose
 * shards are all pushed their records (enhanced fan-out) and at the tip waits on one for all of
 * them, rung when records arrive or a subscription ends, not at each shard's empty events.
 */
final class Doorbell(clock: Clock) {
  private val rings = new Semaphore(0)

  /** Called on the SDK's threads; never blocks. */
  def ring(): Unit = if (rings.availablePermits() == 0) rings.release()

  /** Forgets earlier rings: called before looking at what they announced. */
  def reset(): Unit = rings.drainPermits()

  /** Waits for a ring since the last [[reset]], at most `nanos`; true if it rang. */
  def await(nanos: Long): Boolean = nanos > 0 && clock.awaitSignal(rings, nanos)
}
