package io.github.sparkkinesis.offsets

import org.apache.spark.sql.connector.read.streaming.{Offset => StreamingOffset}

/**
 * The position of every tracked shard: the end of one batch and the start of the next. It
 * also remembers when each stream was created, so a checkpoint is never applied to a stream
 * that was deleted and created again under the same name.
 */
final case class KinesisSourceOffset(
    shards: Map[ShardKey, ShardPosition],
    streamsCreatedAt: Map[String, Long] = Map.empty) extends StreamingOffset {
  override def json(): String = KinesisOffsetJson.write(this)
}
