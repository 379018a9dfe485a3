// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.offsets

import scala.collection.immutable.TreeMap
import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import com.fasterxml.jackson.databind.node.ObjectNode

import io.github.sparkkinesis.errors.KinesisErrors

/**
 * Reads and writes offsets as versioned JSON with sorted keys, so the checkpoint is stable and
 * readable. Unknown versions are rejected: a newer format must never be misread.
 */
object KinesisOffsetJson {
  val Version = 1

  val Example: String =
    """{"version":1,"shards":{"my-stream":{"shardId-000000000000":{"type":"after",""" +
      """"seq":"49590338271490256608559692538361571095921575989136588898"},""" +
      """"shardId-000000000001":{"type":"trim_horizon"}}}}"""

  private val mapper = new ObjectMapper()

  def write(offset: KinesisSourceOffset): String = {
    val root = mapper.createObjectNode()
    root.put("version", Version)
    val streams = root.putObject("shards")
    val byStream = offset.shards.groupBy(_._1.stream)
    TreeMap(byStream.toSeq: _*).foreach { case (stream, shards) =>
      val node = streams.putObject(stream)
      TreeMap(shards.map { case (k, p) => k.shardId -> p }.toSeq: _*).foreach { case (shardId, p) =>
        writePosition(node.putObject(shardId), p)
      }
    }
    if (offset.streamsCreatedAt.nonEmpty) {
      val created = root.putObject("streamsCreatedAt")
      TreeMap(offset.streamsCreatedAt.toSeq: _*).foreach { case (stream, ms) => created.put(stream, ms) }
    }
    mapper.writeValueAsString(root)
  }

  def read(json: String): KinesisSourceOffset = {
    val root =
      try mapper.readTree(json)
      catch {
        case e: Exception => throw KinesisErrors.offsetMalformed("it is not JSON", Example, e)
      }
    if (root == null || !root.isObject) throw malformed("it is not a JSON object")
    val version = Option(root.get("version")).filter(_.canConvertToInt)
      .getOrElse(throw malformed("it has no integer \"version\"")).asInt
    if (version > Version || version < 1) throw KinesisErrors.offsetVersionUnsupported(version, Version)
    val streams = Option(root.get("shards")).filter(_.isObject)
      .getOrElse(throw malformed("it has no \"shards\" object"))
    val shards = for {
      stream <- streams.properties().asScala.toSeq
      shard <- fields(stream.getValue, s"shards.${stream.getKey}")
    } yield ShardKey(stream.getKey, shard.getKey) -> readPosition(shard.getValue, s"${stream.getKey}/${shard.getKey}")
    val created = Option(root.get("streamsCreatedAt")).toSeq.flatMap(fields(_, "streamsCreatedAt")).map { e =>
      if (!e.getValue.canConvertToLong) throw malformed(s"streamsCreatedAt.${e.getKey} is not an integer")
      e.getKey -> e.getValue.asLong
    }
    KinesisSourceOffset(shards.toMap, created.toMap)
  }

  private def fields(node: JsonNode, path: String) =
    if (node.isObject) node.properties().asScala.toSeq
    else throw malformed(s""""$path" is not an object""")

  private def writePosition(node: ObjectNode, position: ShardPosition): Unit = position match {
    case ShardPosition.TrimHorizon => node.put("type", "trim_horizon")
    case ShardPosition.AtTimestamp(ms) => node.put("type", "at_timestamp").put("ms", ms)
    case ShardPosition.AfterSequence(seq, sub) =>
      node.put("type", "after").put("seq", seq)
      sub.foreach(node.put("sub", _))
    case ShardPosition.AtSequence(seq) => node.put("type", "at").put("seq", seq)
    case ShardPosition.ShardEnd(last) =>
      node.put("type", "end")
      last.foreach(node.put("seq", _))
  }

  private def readPosition(node: JsonNode, shard: String): ShardPosition = {
    def text(field: String) = Option(node.get(field)).filter(_.isTextual).map(_.asText)
    def sequence(required: Boolean): Option[String] = text("seq") match {
      case Some(s) if s.nonEmpty && s.forall(_.isDigit) => Some(s)
      case None if !required => None
      case _ => throw malformed(s"""shard $shard has no decimal "seq"""")
    }
    // Inside a KPL aggregate: the user records after this one are still to be read. Optional,
    // so offsets written before aggregates were split still read.
    def subSequence: Option[Long] = Option(node.get("sub")).map { n =>
      if (n.canConvertToLong && n.isIntegralNumber && n.asLong >= 0) n.asLong
      else throw malformed(s"shard $shard has a 'sub' that is not a non-negative integer")
    }
    text("type") match {
      case Some("trim_horizon") => ShardPosition.TrimHorizon
      case Some("at_timestamp") =>
        Option(node.get("ms")).filter(_.canConvertToLong).map(n => ShardPosition.AtTimestamp(n.asLong))
          .getOrElse(throw malformed(s"""shard $shard has no integer "ms""""))
      case Some("after") => ShardPosition.AfterSequence(sequence(required = true).get, subSequence)
      case Some("at") => ShardPosition.AtSequence(sequence(required = true).get)
      case Some("end") => ShardPosition.ShardEnd(sequence(required = false))
      case other => throw malformed(s"shard $shard has an unknown position type ${other.getOrElse("(none)")}")
    }
  }

  private def malformed(reason: String) = KinesisErrors.offsetMalformed(reason, Example)
}
