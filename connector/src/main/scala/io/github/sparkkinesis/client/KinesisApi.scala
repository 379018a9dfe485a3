package io.github.sparkkinesis.client

import io.github.sparkkinesis.offsets.ShardPosition

/** A shard as ListShards describes it. */
final case class ShardDescription(
    shardId: String,
    parentShardId: Option[String],
    adjacentParentShardId: Option[String],
    closed: Boolean) {
  def parents: Seq[String] = parentShardId.toSeq ++ adjacentParentShardId
}

final case class KinesisRecord(
    partitionKey: String,
    data: Array[Byte],
    sequenceNumber: String,
    approximateArrivalMillis: Long)

/**
 * One GetRecords answer. `nextIterator` is empty when the shard is closed and read to its
 * end; `millisBehindLatest` is 0 when the reader has caught up with the tip.
 */
final case class RecordBatch(
    records: Seq[KinesisRecord],
    nextIterator: Option[String],
    millisBehindLatest: Long) {
  def bytes: Long = records.iterator.map(r => r.data.length.toLong + r.partitionKey.length).sum
}

/**
 * The Kinesis calls the polling source makes. The source only talks to Kinesis through this
 * trait, so unit tests can put a fake behind it.
 */
trait KinesisApi {
  def listShards(stream: String, pageSize: Int): Seq[ShardDescription]

  /** When the stream was created: tells a re-created stream from the one a checkpoint knew. */
  def streamCreatedAt(stream: String): Long

  /** An iterator that starts at `position`; `position` must not be a `ShardEnd`. */
  def shardIterator(stream: String, shardId: String, position: ShardPosition): String

  def getRecords(iterator: String, limit: Int): RecordBatch
}

/** Kinesis refused a call for exceeding a rate limit; the caller waits and tries again. */
final class ThrottledException(message: String, cause: Throwable) extends RuntimeException(message, cause)

/** A shard iterator outlived its five minutes; the caller asks for a new one. */
final class IteratorExpiredException(message: String, cause: Throwable) extends RuntimeException(message, cause)
