// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import java.util.{ArrayDeque => JArrayDeque, LinkedHashMap => JLinkedHashMap}

import scala.collection.mutable

import io.github.sparkkinesis.client.PutEntry
import io.github.sparkkinesis.kpl.RecordId

/**
 * A row waiting to be sent: its entry, the shard it is bound for when the sink aggregates,
 * when it was queued (for `maxPutLinger`), and its id with `recordIds`.
 */
private[sink] final case class Pending(entry: PutEntry, target: Option[TargetShard], queuedNanos: Long,
    recordId: Option[String] = None) {

  /**
   * The Kinesis record the row is when it goes alone: its entry, or with an id, a KPL aggregate
   * of the row alone carrying the id, put under the row's own keys (so it lands where the row
   * belongs, and a split never makes a reader drop it).
   */
  def alone: PutEntry = recordId match {
    case None => entry
    case Some(id) =>
      val data = RecordId.wrap(entry.partitionKey, entry.explicitHashKey, entry.data, id)
      PutEntry(entry.partitionKey, data, entry.explicitHashKey, entry.size - entry.data.length + data.length)
  }

  /** The size of [[alone]], without making it. */
  def aloneSize: Long = Pending.aloneSize(entry, recordId)
}

private[sink] object Pending {
  def aloneSize(entry: PutEntry, recordId: Option[String]): Long = recordId match {
    case None => entry.size.toLong
    case Some(id) =>
      entry.size - entry.data.length + RecordId.wrappedLength(entry.partitionKey, entry.explicitHashKey,
        entry.data.length, id)
  }
}

/**
 * The records of one order key (a partition key, or the shard an aggregate is built for) in
 * the order the task wrote them; `bytes` are their entries' sizes.
 */
private[sink] final class KeyQueue {
  val rows = new JArrayDeque[Pending](4)
  var bytes = 0L
}

/**
 * One lane of a stream's records: queued rows by order key, in the order each key was first
 * queued, and how many of the lane's calls are in flight (at most `maxCalls`). Rows of one key
 * always take the same lane, and with one call in flight at a time a lane sends nothing of a
 * key before the key's earlier records were stored or given up. Owned by the batcher's strand
 * (see [[SendLoop]]).
 *
 * @param fullAt the bytes (and, without aggregation, records) of a full call; above them the
 *               writer waits, so memory stays bounded
 * @param aggregateBytes the bytes of a full aggregate: one key queue holding that much is
 *                       worth a call of its own; None without aggregation
 */
private[sink] final class Lane(val maxCalls: Int, fullAtBytes: Long, fullAtRecords: Option[Int],
    aggregateBytes: Option[Long]) {
  private val queues = new JLinkedHashMap[AnyRef, KeyQueue]()
  private var count = 0
  private var queuedBytes = 0L
  private var fullAggregates = 0
  private var calls = 0

  /** The lane's calls in flight, started by [[StreamLanes.callStarted]] and not yet ended. */
  def inFlight: Int = calls
  def callStarted(): Unit = calls += 1
  def callEnded(): Unit = calls -= 1

  def isEmpty: Boolean = count == 0

  /** Rows queued. */
  def size: Int = count

  /** The writer waits before queuing more. */
  def overBound: Boolean = queuedBytes >= fullAtBytes || fullAtRecords.exists(count >= _)

  /** A full call (or aggregate) is waiting: send it without waiting for `maxPutLinger`. */
  def ready: Boolean = overBound || fullAggregates > 0

  def add(key: AnyRef, row: Pending): Unit = {
    var queue = queues.get(key)
    if (queue == null) {
      queue = new KeyQueue
      queues.put(key, queue)
    }
    val before = queue.bytes
    queue.rows.addLast(row)
    queue.bytes += row.entry.size
    count += 1
    queuedBytes += row.entry.size
    aggregateBytes.foreach(limit => if (before < limit && queue.bytes >= limit) fullAggregates += 1)
  }

  /** The key queues, oldest key first; a packer takes rows from their heads with [[take]]. */
  def keyQueues: java.util.Iterator[java.util.Map.Entry[AnyRef, KeyQueue]] = queues.entrySet().iterator()

  /** Removes the head of `queue` (a key queue of this lane), for a call. */
  def take(queue: KeyQueue): Pending = {
    val before = queue.bytes
    val row = queue.rows.pollFirst()
    queue.bytes -= row.entry.size
    count -= 1
    queuedBytes -= row.entry.size
    aggregateBytes.foreach(limit => if (before >= limit && queue.bytes < limit) fullAggregates -= 1)
    row
  }

  /** When the oldest row still queued was queued. */
  def oldestNanos: Long = {
    var oldest = Long.MaxValue
    val it = queues.values().iterator()
    while (it.hasNext) {
      val head = it.next().rows.peekFirst()
      if (head != null && head.queuedNanos < oldest) oldest = head.queuedNanos
    }
    oldest
  }

  /** Drops empty key queues, so the map holds only keys with rows waiting. */
  def prune(): Unit = {
    val it = queues.values().iterator()
    while (it.hasNext) if (it.next().rows.isEmpty) it.remove()
  }

  /** Every queued row, each key's in order, and the lane empty (the stream's shards are mapped again). */
  def drain(): Seq[Pending] = {
    val out = mutable.ArrayBuffer.empty[Pending]
    queues.values().forEach(q => q.rows.forEach(r => out += r))
    queues.clear()
    count = 0
    queuedBytes = 0
    fullAggregates = 0
    out.toSeq
  }
}
