// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import org.apache.spark.internal.Logging

import io.github.sparkkinesis.client.{KinesisPutApi, PutEntry}
import io.github.sparkkinesis.kpl.HashKeyRange

/** What one call came to, or what it threw; `again` is a reshard's new map and the rows to send again. */
private[sink] final case class CallResult(outcome: Either[Throwable, CallOutcome], again: Option[Resend])

/** A new shard map, and the rows to send again with it. */
private[sink] final case class Resend(shards: ShardMap, rows: Seq[Pending])

/**
 * The batcher's remote work, which runs outside its strand: a call with its retries
 * ([[PutAttempts]]) and, when Kinesis stored records on other shards than the map named, what
 * a reshard asks for (on a put thread); a stream's first shard listing (on the writer). Keeps
 * no state of its own: it gets the call and returns what came of it.
 */
private[sink] final class PutCalls(api: KinesisPutApi, attempts: PutAttempts) extends Logging {
  import PutCalls._

  /** On a put thread: the call, then what a reshard asks for; never throws. */
  def run(stream: String, call: IndexedSeq[Packed]): CallResult =
    try {
      val outcome = attempts.send(stream, call)
      CallResult(Right(outcome), if (outcome.misrouted.isEmpty) None else Some(resend(stream, outcome.misrouted)))
    } catch { case e: Throwable => CallResult(Left(e), None) }

  def listShards(stream: String): ShardMap = ShardMap(api.listShards(stream, ListShardsPageSize))

  /**
   * Kinesis stored some records on another shard than this writer's map named: the stream was
   * resharded since it listed the shards. Kinesis routes a record by its explicit hash key, so
   * a plain record is where it belongs anyway, but an aggregate's rows may belong to a sibling
   * of the shard it landed on, and readers (this connector, the KCL) drop rows outside the
   * range of the shard they read, as the KPL format asks. So the shards are listed again, and
   * the rows outside the range of the shard that took their aggregate are sent again, before
   * anything else of the stream, with the new map. Readers that do not check ranges see those
   * rows twice.
   */
  private def resend(stream: String, misrouted: Seq[(Packed, String)]): Resend = {
    val shards = listShards(stream)
    val rows = misrouted.flatMap { case (record, shardId) =>
      if (!record.aggregated) Nil
      else shards.rangeOf(shardId) match {
        case Some(range) => record.rows.filterNot(r => range.contains(hashKeyOf(r.entry)))
        case None => record.rows // A shard ListShards does not name: send them all again.
      }
    }
    logWarning(s"PutRecords to stream '$stream': ${misrouted.size} records were stored on another shard than " +
      s"the one their shard map named (the stream was resharded); listed its shards again, and ${rows.size} rows " +
      "of aggregates that landed on a shard not owning their hash key are sent again")
    Resend(shards, rows)
  }
}

private object PutCalls {
  /** ListShards pages: most streams in one call. */
  private val ListShardsPageSize = 1000

  private def hashKeyOf(e: PutEntry): BigInt = HashKeyRange.hashKeyOf(e.partitionKey, e.explicitHashKey)
}
