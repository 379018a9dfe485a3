// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.schemaregistry

import java.util.UUID

import io.github.sparkkinesis.client.{ConnectionConfig, GlueRegistryApi, SchemaVersion}

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

  def get(connection: ConnectionConfig, id: UUID): SchemaVersion = {
    val key = (connection, id)
    val cached = synchronized(entries.get(key))
    if (cached != null) cached
    else {
      // Looked up outside the lock: a slow registry must not hold up records of cached versions.
      val fetched = new GlueRegistryApi(connection).schemaVersion(id)
      synchronized(entries.put(key, fetched))
      fetched
    }
  }

  def size: Int = synchronized(entries.size())

  private[schemaregistry] def clear(): Unit = synchronized(entries.clear())
}
