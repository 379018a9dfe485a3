// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import scala.collection.mutable

import io.github.sparkkinesis.client.PutEntry
import io.github.sparkkinesis.kpl.HashKeyRange
import io.github.sparkkinesis.options.{KinesisSinkOptions, PutSettings}

/**
 * One stream's lanes, its shard map when aggregating, a newer map waiting for the stream's
 * calls to finish, the rows to send again first, and how many of its calls are in flight.
 * Owned by the batcher's strand (see [[SendLoop]]): only its tasks touch it, and they change
 * it only through the transitions below.
 */
private[sink] final class StreamLanes(val name: String, settings: PutSettings) {
  import StreamLanes._

  val lanes: Array[Lane] =
    if (settings.orderPerKey) Array.fill(settings.maxInFlightPuts)(newLane(1))
    else Array(newLane(settings.maxInFlightPuts))
  private var shards: Option[ShardMap] = None
  /** A newer shard map, put in place once no call of the stream is in flight. */
  private var remap: Option[ShardMap] = None
  private val resend = mutable.ArrayBuffer.empty[Pending]
  private var calls = 0

  def hasWork: Boolean = calls > 0 || remap.isDefined || resend.nonEmpty || lanes.exists(!_.isEmpty)

  /** Rows queued in every lane, and to send again. */
  def queuedRows: Int = lanes.map(_.size).sum + resend.size

  /** The shard map listed for the stream's first row, unless one is in place. */
  def firstShards(listed: Option[ShardMap]): Unit = if (shards.isEmpty) shards = listed

  /** A call found the shards changed: `rows` are sent again, routed by `newer` once the stream's calls are done. */
  def remapLater(newer: ShardMap, rows: Iterable[Pending]): Unit = {
    remap = Some(newer)
    resend ++= rows
  }

  /** A newer shard map waits for the stream's calls to finish: nothing of the stream is queued or sent meanwhile. */
  def waitsForRemap: Boolean = remap.isDefined

  def callStarted(lane: Lane): Unit = {
    lane.callStarted()
    calls += 1
  }

  def callEnded(lane: Lane): Unit = {
    lane.callEnded()
    calls -= 1
  }

  private def newLane(maxCalls: Int) = new Lane(maxCalls, settings.maxBytesPerPut,
    if (settings.aggregate) None else Some(settings.maxRecordsPerPut),
    if (settings.aggregate) Some(math.min(KinesisSinkOptions.MaxAggregateBytes, settings.maxBytesPerPut)) else None)

  /** The lane, order key and target shard of a record. */
  def route(entry: PutEntry): (Lane, AnyRef, Option[TargetShard]) = {
    def byKey = lanes((entry.partitionKey.hashCode & Int.MaxValue) % lanes.length)
    if (settings.aggregate) {
      val target = shards.flatMap(_.shardFor(HashKeyRange.hashKeyOf(entry.partitionKey, entry.explicitHashKey)))
      target match {
        case Some(shard) => (lanes(shard.index % lanes.length), shard, target)
        case None => (byKey, entry.partitionKey, None) // ListShards left a gap: sent plain.
      }
    } else if (settings.orderPerKey) (byKey, entry.partitionKey, None)
    else (lanes(0), Unordered, None)
  }

  /**
   * Puts a newer shard map in place once no call of the stream is in flight: every queued row
   * is routed again, rows to send again first.
   */
  def remapIfIdle(): Unit = if (remap.isDefined && calls == 0) {
    val rows = resend.toVector ++ lanes.flatMap(_.drain())
    resend.clear()
    shards = remap
    remap = None
    rows.foreach { row =>
      val (lane, key, target) = route(row.entry)
      lane.add(key, row.copy(target = target))
    }
  }
}

private object StreamLanes {
  /** The one order key of a stream's rows when their order does not matter. */
  private object Unordered
}
