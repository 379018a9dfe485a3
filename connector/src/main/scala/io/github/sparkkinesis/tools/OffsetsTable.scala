// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.tools

import java.time.Instant

import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}

/** Shard positions as a table a person reads. */
object OffsetsTable {
  /** One row per shard in stream and shard order; with `lag`, a BEHIND column ("unknown" where it failed). */
  def render(positions: Map[ShardKey, ShardPosition], lag: Option[Map[ShardKey, Either[String, Long]]]): String = {
    val header = Seq("STREAM", "SHARD", "POSITION") ++ lag.map(_ => "BEHIND")
    val rows = positions.toSeq.sortBy(_._1).map { case (key, position) =>
      Seq(key.stream, key.shardId, describe(position)) ++ lag.map(_.get(key) match {
        case None => "-"
        case Some(Right(ms)) => s"$ms ms"
        case Some(Left(_)) => "unknown"
      })
    }
    val lines = header +: rows
    val widths = header.indices.map(i => lines.map(_(i).length).max)
    lines.map(cells => cells.zip(widths).map { case (c, w) => c.padTo(w, ' ') }.mkString("  ").trim).mkString("\n")
  }

  def describe(position: ShardPosition): String = position match {
    case ShardPosition.TrimHorizon => "trim_horizon"
    case ShardPosition.AtTimestamp(ms) => s"at_timestamp ${Instant.ofEpochMilli(ms)}"
    case ShardPosition.AtSequence(seq) => s"at $seq"
    case ShardPosition.AfterSequence(seq, None) => s"after $seq"
    case ShardPosition.AfterSequence(seq, Some(sub)) => s"after $seq, user record $sub of its aggregate"
    case ShardPosition.ShardEnd(Some(seq)) => s"end (read to its last record, $seq)"
    case ShardPosition.ShardEnd(None) => "end (read to its last record)"
  }
}
