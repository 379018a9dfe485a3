// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import scala.util.control.NonFatal

import org.apache.spark.internal.Logging

import io.github.sparkkinesis.client.KinesisApi
import io.github.sparkkinesis.client.failures.RetryPolicy
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.polling.TrimHorizonCheck
import io.github.sparkkinesis.threads.InFlight

/**
 * Positions that name no record (TRIM_HORIZON, AT_TIMESTAMP) made to name the shard's first
 * record there now: the same records to read, but a reader that starts there later (a batch
 * run again after a restart) can then tell whether retention deleted any of them first
 * (`failOnDataLoss`, [[TrimHorizonCheck]]), which it cannot from a position that names none.
 * A shard holding no record there yet, or a failed look, keeps its position as it was.
 *
 * A polling query's only: a look is a GetRecords call, and enhanced fan-out's documented
 * permissions have none, so with `efo` every position stays as it is.
 */
object FirstRecords extends Logging {
  /** Shards looked up at once: a stream of thousands of shards is named in a few seconds. */
  val CallsInFlight = 8

  def named(kinesis: KinesisApi, shard: ShardKey, position: ShardPosition, name: String, efo: Boolean): ShardPosition =
    position match {
      case ShardPosition.TrimHorizon | ShardPosition.AtTimestamp(_) if !efo =>
        try {
          RetryPolicy.FirstRecord.run(s"$name: a look at the first record of $shard") {
            TrimHorizonCheck.firstSequence(kinesis, shard, position)
          }.map(ShardPosition.AtSequence).getOrElse(position)
        } catch {
          case NonFatal(e) =>
            logWarning(s"$name: could not find the first record of $shard at $position (${e.getMessage}); " +
              "it stays as it is")
            position
        }
      case other => other
    }

  def namedAll(
      kinesis: KinesisApi, positions: Map[ShardKey, ShardPosition], name: String,
      efo: Boolean): Map[ShardKey, ShardPosition] = {
    val (unnamed, rest) = positions.partition {
      case (_, ShardPosition.TrimHorizon | ShardPosition.AtTimestamp(_)) => !efo
      case _ => false
    }
    val shards = unnamed.toIndexedSeq
    rest ++ shards.map(_._1).zip(InFlight.map(shards, CallsInFlight) { case (k, p) => named(kinesis, k, p, name, efo) })
  }
}
