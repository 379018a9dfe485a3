// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.offsets

import org.apache.spark.sql.connector.read.streaming.{Offset => StreamingOffset}

/**
 * The position of every tracked shard: the end of one batch and the start of the next. It
 * also remembers when each stream was created, so a checkpoint is never applied to a stream
 * that was deleted and created again under the same name. As the end of a batch, it names
 * which of the batch's shards share a task (`coalesced`: one number per task; shards not
 * named have a task each), so the batch has the same tasks whenever it runs.
 */
final case class KinesisSourceOffset(
    shards: Map[ShardKey, ShardPosition],
    streamsCreatedAt: Map[String, Long] = Map.empty,
    coalesced: Map[ShardKey, Int] = Map.empty) extends StreamingOffset {
  // Written once: Spark asks an offset for its JSON several times a trigger (offset log,
  // progress, re-reading the start), and at 10,000 shards each write takes milliseconds.
  @transient private lazy val written = KinesisOffsetJson.write(this)

  override def json(): String = written

  // Spark compares the latest offset with the last one at every trigger; Offset's own equals
  // compares their JSON, which costs a JSON of every shard twice (10,000 shards: milliseconds).
  // Equal offsets have equal JSON, so Offset's hashCode (of the JSON) still agrees.
  override def equals(other: Any): Boolean = other match {
    case that: KinesisSourceOffset =>
      (this eq that) ||
      shards == that.shards && streamsCreatedAt == that.streamsCreatedAt && coalesced == that.coalesced
    case that: StreamingOffset => json() == that.json()
    case _ => false
  }
}
