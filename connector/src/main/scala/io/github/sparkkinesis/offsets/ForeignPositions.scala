// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.offsets

import java.util.Locale

import scala.jdk.CollectionConverters._
import scala.util.Try

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}

/** A foreign source's line of the offset log: its stream, its own batch id, and where each shard's reading starts. */
final case class ForeignOffset(stream: String, batchId: Long, starts: Map[String, ShardPosition])

/** A foreign position this connector cannot read, and why. */
final class ForeignPositionError(message: String) extends IllegalArgumentException(message)

/**
 * qubole's and awslabs' shard positions as this connector's (their checkpoints, for the
 * offsets tool, and qubole's per-shard `startingposition`, which has its offset log's form). Both write a position as an
 * iterator type and its argument (`{"iteratorType":"AFTER_SEQUENCE_NUMBER","iteratorPosition":
 * "4959…"}`); awslabs adds where inside a KPL aggregate it stopped (`subSequenceNumber`, -1
 * outside one, and `isLast`, whether that user record was the aggregate's last).
 */
object ForeignPositions {
  private val mapper = new ObjectMapper()

  val IteratorTypes: Seq[String] =
    Seq("TRIM_HORIZON", "LATEST", "AT_TIMESTAMP", "AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER", "SHARD_END")

  /**
   * A line of the offset log, or None when it is not one of these connectors' offsets (another
   * source of the same query). `plannedAtMs`: when Spark planned the batch (see [[position]]).
   */
  def offsetLine(json: String, where: String, plannedAtMs: Long): Option[ForeignOffset] = {
    val root = Try(mapper.readTree(json)).toOption.filter(n => n != null && n.isObject)
    val metadata =
      root.flatMap(r => Option(r.get("metadata"))).filter(m => m.isObject && field(m, "streamName").isDefined)
    metadata.map { m =>
      val batchId = field(m, "batchId").flatMap(b => Try(b.toLong).toOption)
        .getOrElse(throw new ForeignPositionError(s"$where has no integer metadata.batchId"))
      val starts = root.get.properties().asScala.toSeq.filter(_.getKey != "metadata").map { e =>
        e.getKey -> position(e.getValue, s"$where, shard ${e.getKey}", plannedAtMs)
      }
      ForeignOffset(field(m, "streamName").get, batchId, starts.toMap)
    }
  }

  /** The file a task wrote for one shard: where its reading stopped. */
  def shardFile(json: String, where: String, plannedAtMs: Long): ShardPosition = {
    val node = Try(mapper.readTree(json)).toOption.filter(n => n != null && n.isObject)
      .getOrElse(throw new ForeignPositionError(s"$where is not a JSON object with an iteratorType"))
    position(node, where, plannedAtMs)
  }

  /**
   * The position that continues exactly where the foreign reader stopped:
   *  - AFTER_SEQUENCE_NUMBER: after that record, or after that user record of its aggregate
   *    when it was not the aggregate's last;
   *  - AT_SEQUENCE_NUMBER: at that record, or after the user record before it in its aggregate;
   *  - SHARD_END: read to its end (its children follow);
   *  - LATEST (no record read yet, nothing before it delivered): the records that arrived from
   *    the time Spark planned the batch on; the foreign reader had not read any of them.
   */
  def position(node: JsonNode, where: String, plannedAtMs: Long): ShardPosition = {
    val kind = field(node, "iteratorType").map(_.toUpperCase(Locale.ROOT))
      .getOrElse(throw new ForeignPositionError(s"$where has no iteratorType"))
    def argument = field(node, "iteratorPosition").getOrElse("")
    def sequence = Some(argument).filter(s => s.nonEmpty && s.forall(_.isDigit)).getOrElse {
      throw new ForeignPositionError(
        s"$where: $kind needs a decimal sequence number as iteratorPosition, not '$argument'")
    }
    val sub = field(node, "subSequenceNumber").map { s =>
      Try(s.toLong).getOrElse(throw new ForeignPositionError(s"$where: subSequenceNumber '$s' is not an integer"))
    }.getOrElse(-1L)
    val last = field(node, "isLast").forall { s =>
      Try(s.toBoolean).getOrElse(throw new ForeignPositionError(s"$where: isLast '$s' is neither true nor false"))
    }
    kind match {
      case "TRIM_HORIZON" => ShardPosition.TrimHorizon
      case "LATEST" => ShardPosition.AtTimestamp(plannedAtMs)
      case "AT_TIMESTAMP" =>
        ShardPosition.AtTimestamp(Try(argument.toLong).getOrElse {
          throw new ForeignPositionError(
            s"$where: AT_TIMESTAMP needs epoch milliseconds as iteratorPosition, not '$argument'")
        })
      case "AFTER_SEQUENCE_NUMBER" if sub >= 0 && !last => ShardPosition.AfterSequence(sequence, Some(sub))
      case "AFTER_SEQUENCE_NUMBER" => ShardPosition.AfterSequence(sequence)
      case "AT_SEQUENCE_NUMBER" if sub > 0 => ShardPosition.AfterSequence(sequence, Some(sub - 1))
      case "AT_SEQUENCE_NUMBER" => ShardPosition.AtSequence(sequence)
      case "SHARD_END" => ShardPosition.ShardEnd(None)
      case other =>
        throw new ForeignPositionError(s"$where has the iteratorType $other; known are ${IteratorTypes.mkString(", ")}")
    }
  }

  /** A field as text, whether written as a string (offset log) or as a number or boolean (shard files). */
  private def field(node: JsonNode, name: String): Option[String] =
    Option(node.get(name)).filter(n => n.isValueNode && !n.isNull).map(_.asText)
}
