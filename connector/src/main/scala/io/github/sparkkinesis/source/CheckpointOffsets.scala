package io.github.sparkkinesis.source

import io.github.sparkkinesis.errors.KinesisErrors
import io.github.sparkkinesis.offsets.{KinesisOffsetJson, KinesisSourceOffset}

/**
 * Reads an offset from a query's checkpoint. Besides what [[KinesisOffsetJson]] checks (JSON,
 * version), it must be an offset of this query's streams: one naming other streams comes from
 * another query (a copied or reused checkpoint), and reading on from it would skip or repeat
 * records. Streams added to streamName since the checkpoint are fine: they start as new.
 */
private[sparkkinesis] object CheckpointOffsets {

  def read(json: String, streams: Seq[String]): KinesisSourceOffset = {
    val offset = KinesisOffsetJson.read(json)
    val foreign = offset.shards.keySet.map(_.stream).diff(streams.toSet).toSeq.sorted
    if (foreign.nonEmpty) throw KinesisErrors.offsetStreamMismatch(foreign, streams)
    offset
  }
}
