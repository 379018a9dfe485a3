// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import java.nio.charset.StandardCharsets

import scala.collection.mutable

import io.github.sparkkinesis.client.PutEntry
import io.github.sparkkinesis.kpl.{AggregateBuilder, AggregateTag, RecordId, ResendMark}
import io.github.sparkkinesis.options.{KinesisSinkOptions, PutSettings}

/**
 * One Kinesis record of a call and the rows it carries: one row, or the rows of a KPL
 * aggregate, which is put under its first row's partition key and an explicit hash key inside
 * `target`'s range, so it lands on the shard every one of its rows belongs to.
 */
private[sink] final case class Packed(entry: PutEntry, rows: IndexedSeq[Pending], target: Option[TargetShard]) {
  def aggregated: Boolean = rows.size > 1

  /** What the rows weigh as the user wrote them (data plus partition keys). */
  def rowBytes: Long = rows.iterator.map(_.entry.size.toLong).sum
}

/**
 * Takes one PutRecords call out of a lane: at most `maxRecordsPerPut` Kinesis records and
 * `maxBytesPerPut` bytes (a record larger than that goes alone). With `orderPerKey`, a call
 * carries at most one Kinesis record per order key (a partition key, or the shard of an
 * aggregate): Kinesis stores the entries of a call independently, so it may refuse one and
 * store a later one of the same key, and the retried record would come after it. Without it,
 * a call takes the lane's rows in order, as many as fit.
 *
 * Aggregating, each key queue is one shard's: its rows are packed in order into aggregates of
 * at most 1 MiB (and `maxBytesPerPut`), counting the partition key the aggregate goes under.
 * An aggregate that would hold one row is sent as that row, plain, as the KPL does; so is a row
 * too large to fit in an aggregate with the frame's bytes. With `recordIds`, every user record
 * carries its id as a tag, and a row sent alone is an aggregate of itself ([[Pending.alone]]).
 */
private[sink] final class CallPacker(settings: PutSettings) {
  private val NoTags = IndexedSeq.empty[AggregateTag]
  private val aggregateLimit = math.min(KinesisSinkOptions.MaxAggregateBytes, settings.maxBytesPerPut)

  def pack(lane: Lane): IndexedSeq[Packed] = {
    val call = mutable.ArrayBuffer.empty[Packed]
    var bytes = 0L
    val queues = lane.keyQueues
    var callFull = false
    while (!callFull && queues.hasNext && call.size < settings.maxRecordsPerPut) {
      val queue = queues.next().getValue
      var keyDone = false
      while (!keyDone && !queue.rows.isEmpty && call.size < settings.maxRecordsPerPut) {
        val next = if (settings.aggregate) aggregate(lane, queue, call.isEmpty, bytes)
        else plain(lane, queue, call.isEmpty, bytes)
        next match {
          case Some(record) =>
            call += record
            bytes += record.entry.size
            keyDone = settings.orderPerKey
          case None =>
            keyDone = true
            // In order, a row that does not fit ends the call; by key, other keys may still fit.
            callFull = !settings.orderPerKey
        }
      }
      if (bytes >= settings.maxBytesPerPut) callFull = true
    }
    lane.prune()
    call.toIndexedSeq
  }

  private def fits(callEmpty: Boolean, callBytes: Long, size: Long): Boolean =
    callEmpty || callBytes + size <= settings.maxBytesPerPut

  private def plain(lane: Lane, queue: KeyQueue, callEmpty: Boolean, callBytes: Long): Option[Packed] = {
    val head = queue.rows.peekFirst()
    if (!fits(callEmpty, callBytes, head.aloneSize)) None
    else {
      val row = lane.take(queue)
      Some(Packed(row.alone, IndexedSeq(row), row.target))
    }
  }

  /** The next Kinesis record of one shard's queue: an aggregate of as many rows as fit, or one row. */
  private def aggregate(lane: Lane, queue: KeyQueue, callEmpty: Boolean, callBytes: Long): Option[Packed] = {
    val target = queue.rows.peekFirst().target
    if (target.isEmpty) return plain(lane, queue, callEmpty, callBytes) // No shard known: not aggregated.
    // Marked: the batcher sends again the rows that land on a shard not owning them, so readers may drop that copy.
    val builder = new AggregateBuilder(ResendMark.tags(target.get.shardId))
    val rows = mutable.ArrayBuffer.empty[Pending]
    var keyBytes = 0L
    var open = true
    while (open && !queue.rows.isEmpty) {
      val head = queue.rows.peekFirst()
      val e = head.entry
      val tags = head.recordId.fold(NoTags)(RecordId.tags)
      if (builder.isEmpty) keyBytes = e.partitionKey.getBytes(StandardCharsets.UTF_8).length.toLong
      val size = builder.sizeWith(e.partitionKey, e.explicitHashKey, e.data.length, tags) + keyBytes
      if (size <= aggregateLimit && callBytes + size <= settings.maxBytesPerPut) {
        val row = lane.take(queue)
        builder.add(e.partitionKey, e.explicitHashKey, e.data, tags)
        rows += row
      } else open = false
    }
    rows.size match {
      case 0 => plain(lane, queue, callEmpty, callBytes) // Too large for an aggregate, or for what is left of the call.
      // Alone under its own keys: an aggregate of one put under the shard's hash key and marked
      // could land on a sibling after a split, where readers drop it, and is not sent again.
      case 1 => Some(Packed(rows.head.alone, rows.toIndexedSeq, target))
      case _ =>
        val data = builder.result()
        val key = builder.firstPartitionKey.get
        val entry = PutEntry(key, data, Some(target.get.explicitHashKey), data.length + keyBytes.toInt)
        Some(Packed(entry, rows.toIndexedSeq, target))
    }
  }
}
