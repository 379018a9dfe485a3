package io.github.sparkkinesis.offsets

import org.apache.spark.sql.connector.read.streaming.{Offset => StreamingOffset}

/** The position of every tracked shard: the end of one batch and the start of the next. */
final case class KinesisSourceOffset(shards: Map[ShardKey, ShardPosition]) extends StreamingOffset {
  override def json(): String = KinesisOffsetJson.write(this)
}
