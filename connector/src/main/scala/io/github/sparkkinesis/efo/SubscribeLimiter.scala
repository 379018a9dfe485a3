// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.efo

import java.util.concurrent.ConcurrentHashMap

import io.github.sparkkinesis.time.{Clock, SystemClock}

/**
 * Spaces SubscribeToShard calls for the same consumer and shard, JVM-wide (ARCHITECTURE.md
 * invariant 4). Kinesis refuses a repeat call within 5 seconds of the last one with
 * ResourceInUseException, and allows 1 call per second per shard per consumer; spacing calls
 * 5 s apart keeps both rules whatever the readers in this JVM do.
 *
 * A turn older than the spacing says nothing (the next call may go at once), so it is dropped:
 * at every call once the entries doubled since the last look, and when a query stops
 * ([[prune]]). The limiter thus holds only the turns of the last 5 s, however many shards,
 * consumers and queries this JVM saw.
 */
final class SubscribeLimiter(minSpacingMs: Long, clock: Clock) {
  private val lastCallNanos = new ConcurrentHashMap[(String, String), java.lang.Long]()
  private val minSpacingNanos = minSpacingMs * 1000000L
  // How many entries the last prune left: the next is due when the map doubled past it.
  @volatile private var keptAtPrune = 0

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
    if (lastCallNanos.size() > 2 * keptAtPrune + SubscribeLimiter.MinEntriesBeforePrune) prune()
    wait
  }

  /** Drops the turns older than the spacing: they no longer hold a call back. */
  def prune(): Unit = {
    val now = clock.nanoTime()
    lastCallNanos.values().removeIf(last => now - last >= minSpacingNanos)
    keptAtPrune = lastCallNanos.size()
  }

  /** How many turns are held (those of the last `minSpacingMs`, and older ones not yet pruned). */
  def size: Int = lastCallNanos.size()

  /** Forgets the turns of one consumer (after it is deregistered), so the map cannot only grow. */
  def forget(consumerArn: String): Unit = lastCallNanos.keySet().removeIf(_._1 == consumerArn)
}

object SubscribeLimiter {
  /** Kinesis' repeat rule: no SubscribeToShard within 5 s of the previous one for the shard and consumer. */
  val MinSpacingMs = 5000L

  /** Fewer entries than this are not worth a look over the map. */
  private val MinEntriesBeforePrune = 64

  val global: SubscribeLimiter = new SubscribeLimiter(MinSpacingMs, SystemClock)
}
