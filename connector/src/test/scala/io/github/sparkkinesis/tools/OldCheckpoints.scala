// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.tools

import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Path}

/**
 * Writes checkpoints as Spark and the qubole and awslabs connectors lay them out, from their
 * formats: Spark's offset log (`offsets/N`: "v1", the batch metadata, one line per source),
 * its commit log (`commits/N`), and the connectors' per-batch, per-shard files.
 */
final class OldCheckpoints(val root: Path) {
  def offsets(batch: Long, plannedAtMs: Long, sourceLines: String*): this.type = write(
    s"offsets/$batch",
    ("v1" +: s"""{"batchWatermarkMs":0,"batchTimestampMs":$plannedAtMs,"conf":{}}""" +: sourceLines).mkString("\n"))

  def commit(batch: Long): this.type = write(s"commits/$batch", "v1\n{\"nextBatchWatermarkMs\":0}")

  /** A task's file: where its reading of `shard` stopped in `batch`, under `metadata` (relative to the root). */
  def shardFile(metadata: String, batch: Long, shard: String, json: String): this.type =
    write(s"$metadata/$batch/$shard", json)

  def write(relative: String, text: String): this.type = {
    val file = root.resolve(relative)
    Files.createDirectories(file.getParent)
    Files.write(file, text.getBytes(StandardCharsets.UTF_8))
    this
  }

  override def toString: String = root.toString
}

object OldCheckpoints {
  /** A line of the offset log as both connectors write it; `shards` are (shard id, iterator JSON fields). */
  def line(stream: String, batchId: Long, shards: (String, String)*): String =
    (s""""metadata":{"streamName":"$stream","batchId":"$batchId"}""" +: shards.map { case (id, fields) =>
      s""""$id":{$fields}"""
    }).mkString("{", ",", "}")

  /** qubole's position fields. */
  def qubole(iteratorType: String, position: String = ""): String =
    s""""iteratorType":"$iteratorType","iteratorPosition":"$position""""

  /** awslabs' position fields, as strings in the offset log. */
  def awslabs(iteratorType: String, position: String = "", sub: Long = -1, isLast: Boolean = true): String =
    qubole(iteratorType, position) + s""","subSequenceNumber":"$sub","isLast":"$isLast""""

  /** A shard file (the ShardInfo case class both serialize), awslabs' numbers and booleans as JSON ones. */
  def shardInfo(shard: String, iteratorType: String, position: String = "", sub: Option[Long] = None,
      isLast: Boolean = true): String = {
    val awslabs = sub.map(s => s""","subSequenceNumber":$s,"isLast":$isLast""").getOrElse("")
    s"""{"shardId":"$shard","iteratorType":"$iteratorType","iteratorPosition":"$position"$awslabs}"""
  }
}
