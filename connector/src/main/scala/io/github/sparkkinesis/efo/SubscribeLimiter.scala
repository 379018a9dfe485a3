// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.efo

import java.util.concurrent.ConcurrentHashMap

import io.github.sparkkinesis.time.{Clock, SystemClock}

/**
 * Spaces SubscribeToShard calls for the same consumer and shard, JVM-wide (ARCHITECTURE.md
 * invariant 4). Kinesis refuses a repeat call within 5 seconds of the last one with
 * ResourceInUseException, and allows 1 call per second per shard per consumer; spacing calls
 * 5 s apart keeps both rules whatever the readers in this JVM do.
 */
final class SubscribeLimiter(minSpacingMs: Long, clock: Clock) {
  private val lastCallNanos = new ConcurrentHashMap[(String, String), java.lang.Long]()
  private val minSpacingNanos = minSpacingMs * 1000000L

  /**
   * Takes the turn of (consumerArn, shardId) and returns 0 when a call may be made now (the
   * caller then makes it); otherwise returns how many nanoseconds to wait, and takes nothing.
   */
  def tryAcquire(consumerArn: String, shardId: String): Long = {
    var wait = 0L
    lastCallNanos.compute((consumerArn, shardId),
      (_, last) => {
        val now = clock.nanoTime()
        if (last == null || now - last >= minSpacingNanos) {
          wait = 0L
          java.lang.Long.valueOf(now)
        } else {
          wait = last + minSpacingNanos - now
          last
        }
      })
    wait
  }

  /** Forgets the turns of one consumer (after it is deregistered), so the map cannot only grow. */
  def forget(consumerArn: String): Unit = lastCallNanos.keySet().removeIf(_._1 == consumerArn)
}

object SubscribeLimiter {
  /** Kinesis' repeat rule: no SubscribeToShard within 5 s of the previous one for the shard and consumer. */
  val MinSpacingMs = 5000L

  val global: SubscribeLimiter = new SubscribeLimiter(MinSpacingMs, SystemClock)
}
