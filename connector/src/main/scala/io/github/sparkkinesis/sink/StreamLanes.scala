// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import scala.collection.mutable

import io.github.sparkkinesis.client.PutEntry
import io.github.sparkkinesis.kpl.HashKeyRange
import io.github.sparkkinesis.options.{KinesisSinkOptions, PutSettings}

/**
 * One stream's lanes, its shard map when aggregating, a newer map waiting for the stream's
 * calls to finish, the rows to send again first, and how many of its calls are in flight.
 * Owned by the batcher's strand (see [[SendLoop]]): only its tasks touch it.
 */
private[sink] final class StreamLanes(val name: String, settings: PutSettings) {
  import StreamLanes._

  val lanes: Array[Lane] =
    if (settings.orderPerKey) Array.fill(settings.maxInFlightPuts)(newLane(1))
    else Array(newLane(settings.maxInFlightPuts))
  var shards: Option[ShardMap] = None
  /** A newer shard map, put in place once no call of the stream is in flight. */
  var remap: Option[ShardMap] = None
  val resend = mutable.ArrayBuffer.empty[Pending]
  var inFlight = 0

  def hasWork: Boolean = inFlight > 0 || remap.isDefined || resend.nonEmpty || lanes.exists(!_.isEmpty)

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

  /** Puts the newer shard map in place: every queued row is routed again, rows to send again first. */
  def applyRemap(): Unit = {
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
