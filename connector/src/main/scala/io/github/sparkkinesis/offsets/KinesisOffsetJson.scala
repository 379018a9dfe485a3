// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.offsets

import java.io.StringWriter

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.core.JsonGenerator
import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}

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

  /** Streamed, not built as a tree first: an offset of 10,000 shards is written at every batch. */
  def write(offset: KinesisSourceOffset): String = {
    val out = new StringWriter(64 + offset.shards.size * 96) // about a shard's size: not grown again and again
    val json = mapper.getFactory.createGenerator(out)
    json.writeStartObject()
    json.writeNumberField("version", Version)
    json.writeObjectFieldStart("shards")
    var stream: String = null
    ShardOrder.of(offset.shards).foreach { key =>
      val position = offset.shards(key)
      if (key.stream != stream) {
        if (stream != null) json.writeEndObject()
        stream = key.stream
        json.writeObjectFieldStart(stream)
      }
      json.writeObjectFieldStart(key.shardId)
      writePosition(json, position)
      json.writeEndObject()
    }
    if (stream != null) json.writeEndObject()
    json.writeEndObject()
    if (offset.coalesced.nonEmpty) {
      // Shards sharing a task in the batch ending here, by stream: written only for packed batches.
      json.writeObjectFieldStart("coalesced")
      offset.coalesced.groupBy(_._1.stream).toSeq.sortBy(_._1).foreach { case (name, tasks) =>
        json.writeObjectFieldStart(name)
        tasks.toSeq.sortBy(_._1.shardId).foreach { case (shard, task) => json.writeNumberField(shard.shardId, task) }
        json.writeEndObject()
      }
      json.writeEndObject()
    }
    if (offset.streamsCreatedAt.nonEmpty) {
      json.writeObjectFieldStart("streamsCreatedAt")
      offset.streamsCreatedAt.toSeq.sorted.foreach { case (name, ms) => json.writeNumberField(name, ms) }
      json.writeEndObject()
    }
    json.writeEndObject()
    json.close()
    out.toString
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
    // Optional: offsets written before batches named their tasks plan one task per shard.
    val coalesced = for {
      stream <- Option(root.get("coalesced")).toSeq.flatMap(fields(_, "coalesced"))
      shard <- fields(stream.getValue, s"coalesced.${stream.getKey}")
    } yield {
      val task = shard.getValue
      if (!task.isIntegralNumber || !task.canConvertToInt || task.asInt < 0) {
        throw malformed(s"coalesced.${stream.getKey}.${shard.getKey} is not a non-negative integer")
      }
      ShardKey(stream.getKey, shard.getKey) -> task.asInt
    }
    KinesisSourceOffset(shards.toMap, created.toMap, coalesced.toMap)
  }

  private def fields(node: JsonNode, path: String) =
    if (node.isObject) node.properties().asScala.toSeq
    else throw malformed(s""""$path" is not an object""")

  private def writePosition(json: JsonGenerator, position: ShardPosition): Unit = position match {
    case ShardPosition.TrimHorizon => json.writeStringField("type", "trim_horizon")
    case ShardPosition.AtTimestamp(ms) =>
      json.writeStringField("type", "at_timestamp")
      json.writeNumberField("ms", ms)
    case ShardPosition.AfterSequence(seq, sub) =>
      json.writeStringField("type", "after")
      json.writeStringField("seq", seq)
      sub.foreach(json.writeNumberField("sub", _))
    case ShardPosition.AtSequence(seq) =>
      json.writeStringField("type", "at")
      json.writeStringField("seq", seq)
    case ShardPosition.ShardEnd(last) =>
      json.writeStringField("type", "end")
      last.foreach(json.writeStringField("seq", _))
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
