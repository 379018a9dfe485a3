// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import org.apache.hadoop.fs.Path

import io.github.sparkkinesis.errors.{KinesisConnectorException, KinesisErrors}
import io.github.sparkkinesis.offsets.{KinesisOffsetJson, KinesisSourceOffset}

/**
 * Reads offsets from a query's checkpoint. Besides what [[KinesisOffsetJson]] checks (JSON,
 * version), it must be an offset of this query's streams: one naming other streams comes from
 * another query (a copied or reused checkpoint), and reading on from it would skip or repeat
 * records. Streams added to streamName since the checkpoint are fine: they start as new. Every
 * error names the checkpoint, so a user with many queries knows which one is damaged.
 */
private[sparkkinesis] object CheckpointOffsets {

  /** An offset of Spark's offset log; `metadataPath` is the source's `<checkpoint>/sources/<n>`. */
  def read(json: String, streams: Seq[String], metadataPath: String): KinesisSourceOffset = {
    val where = s"checkpoint ${checkpointOf(metadataPath)}"
    val offset = located(where)(KinesisOffsetJson.read(json))
    val foreign = offset.shards.keySet.map(_.stream).diff(streams.toSet).toSeq.sorted
    if (foreign.nonEmpty) throw KinesisErrors.offsetStreamMismatch(foreign, streams, where)
    offset
  }

  /** Runs `body`, an offset read from `where`, naming `where` in the error if it fails. */
  def located[T](where: String)(body: => T): T =
    try body
    catch {
      case e: KinesisConnectorException if e.parameters.contains("checkpoint") =>
        throw new KinesisConnectorException(e.condition, e.parameters + ("checkpoint" -> where), e.getCause)
    }

  private def checkpointOf(metadataPath: String): String =
    Option(new Path(metadataPath).getParent).flatMap(p => Option(p.getParent)).map(_.toString).getOrElse(metadataPath)
}
