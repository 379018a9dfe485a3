// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import java.util.concurrent.ConcurrentHashMap

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.client.ConnectionConfig
import io.github.sparkkinesis.client.sdk.KinesisClients
import io.github.sparkkinesis.efo.SubscribeLimiter
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.reader.ShardReader

/**
 * Shard readers (GetRecords cursors, EFO subscriptions) kept on an executor between prefetch
 * tasks, so the next task for a shard continues with the same shard iterator and pacing (or the
 * same open subscription, ARCHITECTURE.md invariant 4) instead of starting over. The driver
 * sends a shard's tasks back to the executor that ran the last one, which is what makes the
 * cache hit.
 *
 * Ownership: this object, one per JVM, holds every cached reader; a reader belongs either to
 * the one task that acquired it or to this cache, never both. Lifecycle: a task [[acquire]]s a
 * reader (the cached one if it stands where the task starts, else a new one) and [[release]]s
 * it when done. A cached reader is closed when
 *  - a task asks for its shard from another position (its answer was lost with a failed task),
 *    or with another consumer (the query registered its deleted consumer again);
 *  - its shard is read on another executor now, or no longer tracked ([[releaseUnowned]], run
 *    by each prefetch task of the query);
 *  - it was idle for [[MaxIdleNanos]] (checked whenever readers are released, and on reuse);
 *  - the cache holds more than [[MaxCachedReaders]] readers, or more than
 *    [[MaxCachedSubscriptions]] EFO readers (the longest idle go first);
 *  - its query stops ([[forget]]: the driver calls it for its own JVM, and the stop-time
 *    release job on the other executors; a reader in use then is closed when released).
 *
 * A query's tasks hold the connection's clients in this JVM ([[holdClients]], one lease per
 * query and JVM) from its first task here until [[forget]]: the clients outlive every task and
 * cached reader of the query, and close with the last user once it stops.
 */
private[sparkkinesis] object ExecutorCursors {
  private final case class Key(streamInstance: String, shard: ShardKey)
  private final case class Entry(cursor: ShardReader, releasedNanos: Long)

  /** Kinesis shard iterators expire after five minutes; a cursor idle that long is useless. */
  val MaxIdleNanos: Long = 5L * 60 * 1000000000L
  /**
   * Readers kept per JVM at most. A polling cursor is a shard iterator and its pacing; one
   * not kept costs its shard a GetShardIterator call in every prefetch round, so an executor
   * keeps one for every shard of even the largest streams.
   */
  val MaxCachedReaders = 65536
  /** EFO readers kept per JVM at most: each holds an open subscription and its buffer. */
  val MaxCachedSubscriptions = 1024
  private val cache = new ConcurrentHashMap[Key, Entry]()
  // Stream instances whose query stopped; a task still running for one closes its readers.
  private val stopped = ConcurrentHashMap.newKeySet[String]()
  // Per stream instance, its lease on the connection's clients in this JVM.
  private val clients = new ConcurrentHashMap[String, AutoCloseable]()
  private val MaxStoppedRemembered = 10000

  /**
   * The cached cursor when it stands exactly at `from` and reads with `consumer` (None: polls),
   * else a new one. Exclusive until released.
   */
  def acquire(streamInstance: String, shard: ShardKey, from: ShardPosition, consumer: Option[String] = None)(
      create: => ShardReader): ShardReader =
    Option(cache.remove(Key(streamInstance, shard))) match {
      case Some(Entry(reader, released))
          if reader.position == from && reader.consumer == consumer && !idle(released, System.nanoTime()) =>
        reader
      case other =>
        // Stands elsewhere (its answer was lost with a failed task), its consumer was deleted,
        // or it was idle too long.
        other.foreach(_.cursor.close())
        create
    }

  def release(streamInstance: String, cursor: ShardReader): Unit = releaseAll(streamInstance, Seq(cursor))

  /**
   * Readers handed back (a task's, when it ends), then the idle and excess ones closed: one
   * look over the cache per call, however many readers a task held (thousands, on a large
   * stream).
   */
  def releaseAll(streamInstance: String, cursors: Seq[ShardReader]): Unit = {
    cursors.foreach(keep(streamInstance, _))
    evictIdleAndExcess()
  }

  private def keep(streamInstance: String, cursor: ShardReader): Unit = {
    if (stopped.contains(streamInstance)) cursor.close()
    else {
      val key = Key(streamInstance, cursor.shard)
      val entry = Entry(cursor, System.nanoTime())
      Option(cache.put(key, entry)).filter(_.cursor ne cursor).foreach(_.cursor.close())
      // A stop between the check and the put: forget marks the instance stopped before it
      // empties the cache, so either it removed this entry or this sees the mark. Without it a
      // reader (an open EFO subscription) would stay cached for a query that no longer runs.
      if (stopped.contains(streamInstance) && cache.remove(key, entry)) cursor.close()
    }
  }

  /**
   * Closes the cached readers of a stream instance that the executor at `here` no longer owns:
   * `owners` names, per shard the query tracks, the executor whose reader stands where the
   * driver's record of the shard ends; a reader of a shard owned elsewhere stands behind it, and
   * one of a shard not in `owners` is of a shard the query no longer reads. Readers of `keep`
   * (the task's own shards, which it may reuse) stay. Returns how many were closed.
   */
  def releaseUnowned(streamInstance: String, here: String, owners: Map[ShardKey, String], keep: Set[ShardKey]): Int = {
    val unowned = cache.keySet().asScala.filter { k =>
      k.streamInstance == streamInstance && !keep.contains(k.shard) && !owners.get(k.shard).contains(here)
    }
    unowned.toSeq.count(k => Option(cache.remove(k)).map(_.cursor.close()).isDefined)
  }

  /** The query of `streamInstance` uses `connection`'s clients in this JVM until [[forget]] (once per query). */
  def holdClients(streamInstance: String, connection: ConnectionConfig): Unit =
    if (!stopped.contains(streamInstance) && !clients.containsKey(streamInstance)) {
      val lease = KinesisClients.lease(connection)
      if (clients.putIfAbsent(streamInstance, lease) != null) lease.close()
      // A stop meanwhile: forget marks the instance stopped before it lets go of the lease.
      if (stopped.contains(streamInstance)) Option(clients.remove(streamInstance)).foreach(_.close())
    }

  /**
   * Forgets every cursor of a stream instance (its query stopped), and lets go of its clients;
   * readers in use are closed when released.
   */
  def forget(streamInstance: String): Unit = {
    if (stopped.size >= MaxStoppedRemembered) stopped.clear()
    stopped.add(streamInstance)
    cache.keySet().asScala.filter(_.streamInstance == streamInstance)
      .foreach(k => Option(cache.remove(k)).foreach(_.cursor.close()))
    Option(clients.remove(streamInstance)).foreach(_.close())
    SubscribeLimiter.global.prune()
  }

  /**
   * Whether the query of `streamInstance` stopped, as far as this JVM heard. A task that starts
   * after it (a round or batch the stop could not cancel) reads nothing: a new reader would
   * call Kinesis, and open a subscription, for a query that no longer runs.
   */
  def isStopped(streamInstance: String): Boolean = stopped.contains(streamInstance)

  /** The shards whose readers of a stream instance are cached here. For tests. */
  def cached(streamInstance: String): Set[ShardKey] =
    cache.keySet().asScala.filter(_.streamInstance == streamInstance).map(_.shard).toSet

  def size: Int = cache.size()

  private def idle(releasedNanos: Long, now: Long): Boolean = now - releasedNanos > MaxIdleNanos

  private def evictIdleAndExcess(): Unit = {
    val now = System.nanoTime()
    val (idleOnes, kept) = cache.entrySet().asScala.toSeq.map(e => (e.getKey, e.getValue))
      .partition { case (_, entry) => idle(entry.releasedNanos, now) }
    val subscriptions = kept.count(_._2.cursor.consumer.isDefined)
    val excess = if (kept.size <= MaxCachedReaders && subscriptions <= MaxCachedSubscriptions) Nil
    else {
      val newestFirst = kept.sortBy(-_._2.releasedNanos)
      newestFirst.filter(_._2.cursor.consumer.isDefined).drop(MaxCachedSubscriptions) ++
        newestFirst.drop(MaxCachedReaders)
    }
    (idleOnes ++ excess).foreach { case (key, entry) => if (cache.remove(key, entry)) entry.cursor.close() }
  }
}
