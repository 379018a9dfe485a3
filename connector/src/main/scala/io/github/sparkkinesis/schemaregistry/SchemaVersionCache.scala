// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.schemaregistry

import java.util.UUID

import io.github.sparkkinesis.client.ConnectionConfig
import io.github.sparkkinesis.client.sdk.{GlueRegistryApi, SchemaNotFoundException, SchemaVersion}

/**
 * The schema versions this JVM has looked up, by registry connection and version id, at most
 * [[MaxEntries]] (least recently used dropped first). A version's definition never changes, so
 * an entry is never stale; every task of every query in the JVM shares it, which keeps the
 * registry calls to one per version and executor.
 */
object SchemaVersionCache {
  val MaxEntries = 1000

  private val entries = new java.util.LinkedHashMap[(ConnectionConfig, UUID), SchemaVersion](64, 0.75f, true) {
    override def removeEldestEntry(eldest: java.util.Map.Entry[(ConnectionConfig, UUID), SchemaVersion]): Boolean =
      this.size() > MaxEntries
  }

  // One lock per version being looked up: tasks that meet a new version at once make one call,
  // while records of cached versions never wait for a slow registry.
  private val lookups = new java.util.concurrent.ConcurrentHashMap[(ConnectionConfig, UUID), Object]()

  def get(connection: ConnectionConfig, id: UUID): SchemaVersion = {
    val key = (connection, id)
    val cached = synchronized(entries.get(key))
    if (cached != null) cached
    else {
      val lock = lookups.computeIfAbsent(key, _ => new Object)
      try lock.synchronized {
          val again = synchronized(entries.get(key))
          if (again != null) again
          else {
            val fetched = new GlueRegistryApi(connection).schemaVersion(id)
            synchronized(entries.put(key, fetched))
            fetched
          }
        }
      finally lookups.remove(key, lock)
    }
  }

  def size: Int = synchronized(entries.size())

  private[schemaregistry] def clear(): Unit = synchronized(entries.clear())

  /**
   * A record's writer version when it can be read as `format` (AVAILABLE, of that format), with
   * the words that name it in errors; else why not, naming the version.
   */
  def readable(connection: ConnectionConfig, id: UUID, format: String): Either[String, (SchemaVersion, String)] = {
    val version =
      try get(connection, id)
      catch {
        case e: SchemaNotFoundException =>
          return Left(s"Schema version $id of a record is not in the registry (unknown or deleted): ${e.getMessage}")
      }
    val named = s"Schema version $id (${version.schemaArn} version ${version.versionNumber})"
    if (version.status != "AVAILABLE") Left(s"$named of a record is ${version.status}, not AVAILABLE")
    else if (version.dataFormat != format) Left(s"$named of a record is ${version.dataFormat}, not $format")
    else Right((version, named))
  }
}
