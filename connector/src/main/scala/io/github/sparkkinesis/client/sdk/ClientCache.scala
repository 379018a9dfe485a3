// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.sdk

import scala.collection.mutable
import scala.util.control.NonFatal

import org.apache.spark.internal.Logging
import io.github.sparkkinesis.client.ConnectionConfig

/**
 * One JVM's SDK clients of one kind, one per [[ConnectionConfig]], so the driver and every
 * executor reuse connections across batches. The cache owns its clients' lifecycle:
 *  - bounded: at most `maxClients`; building one more closes the least recently used;
 *  - evicted when idle: a client not asked for in `idleMillis` is closed (the next call
 *    builds a new one), so a stopped query's connections and threads do not stay open;
 *  - closed when the last query using a connection in this JVM stops ([[release]]).
 * Idle must be longer than any call and than a subscription's 5-minute life, as a client is
 * asked for at every call and every subscription renewal. `closed` hears of every client closed,
 * after it closed (its credentials provider is released then).
 */
private[client] final class ClientCache[C <: AutoCloseable](
    kind: String,
    build: ConnectionConfig => C,
    maxClients: Int = ClientCache.DefaultMaxClients,
    idleMillis: Long = ClientCache.DefaultIdleMillis,
    now: () => Long = () => System.currentTimeMillis(),
    closed: ConnectionConfig => Unit = _ => ()) extends Logging {

  // `used`: when last asked for; `order`: how recently, for the bound (two calls may share a time).
  private final class Entry(val connection: ConnectionConfig, val client: C) {
    var used = 0L
    var order = 0L
  }

  private val entries = mutable.HashMap.empty[ConnectionConfig, Entry]
  private var uses = 0L
  // No client is idle before this time: until then a call is one lookup, not a sweep.
  private var nextSweepAt = Long.MaxValue

  /** The client for `connection`, built now if there is none. */
  def get(connection: ConnectionConfig): C = {
    val (client, evicted) = synchronized {
      val time = now()
      uses += 1
      val entry = entries.getOrElseUpdate(connection, new Entry(connection, build(connection)))
      entry.used = time
      entry.order = uses
      nextSweepAt = math.min(nextSweepAt, time + idleMillis)
      (entry.client, if (time < nextSweepAt && entries.size <= maxClients) Nil else sweep(time))
    }
    evicted.foreach(closeQuietly) // Outside the lock: closing may wait.
    client
  }

  /** Removes the clients idle for `idleMillis` and, beyond `maxClients`, the least recently used. */
  private def sweep(time: Long): Seq[Entry] = {
    val (idle, live) = entries.values.toSeq.partition(e => time - e.used >= idleMillis)
    val gone = idle ++ live.sortBy(_.order).dropRight(maxClients)
    gone.foreach(e => entries.remove(e.connection))
    nextSweepAt = if (entries.isEmpty) Long.MaxValue else entries.values.map(_.used).min + idleMillis
    gone
  }

  /** Closes the client of `connection`, if there is one; the next [[get]] builds a new one. */
  def close(connection: ConnectionConfig): Unit =
    synchronized(entries.remove(connection)).foreach(closeQuietly)

  def size: Int = synchronized(entries.size)

  // A cancelled task may be the last user, closing with its thread interrupted: the client's
  // event loop would then fail to shut down (and log an error). The flag is set again after.
  private def closeQuietly(entry: Entry): Unit = {
    val interrupted = Thread.interrupted()
    try entry.client.close()
    catch {
      case NonFatal(e) => logWarning(s"Could not close an idle $kind client: ${e.getMessage}")
    } finally {
      closed(entry.connection)
      if (interrupted) Thread.currentThread().interrupt()
    }
  }
}

private[client] object ClientCache {
  /** Far more connections (region, endpoint, credentials) than one JVM's queries use. */
  val DefaultMaxClients = 32
  /** Longer than a subscription's 5-minute life and any call's time-outs. */
  val DefaultIdleMillis: Long = 10 * 60 * 1000L
}
