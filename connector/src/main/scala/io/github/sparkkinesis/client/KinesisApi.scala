// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client

import io.github.sparkkinesis.kpl.{HashKeyRange, RangeCheck}
import io.github.sparkkinesis.offsets.ShardPosition

/** A shard as ListShards describes it. */
final case class ShardDescription(
    shardId: String,
    parentShardId: Option[String],
    adjacentParentShardId: Option[String],
    closed: Boolean,
    hashKeyRange: Option[HashKeyRange] = None) {
  def parents: Seq[String] = parentShardId.toSeq ++ adjacentParentShardId
}

/**
 * One user record: a Kinesis record, or one of the records a KPL aggregate holds. Those share
 * the Kinesis record's sequence number and arrival time and are told apart by
 * `subSequenceNumber` (0 when not aggregated); `endsKinesisRecord` is false while later user
 * records of the same Kinesis record follow. `recordId` is the id a writer with `recordIds`
 * tagged the user record with (see [[io.github.sparkkinesis.kpl.RecordId]]).
 */
final case class KinesisRecord(
    partitionKey: String,
    data: Array[Byte],
    sequenceNumber: String,
    approximateArrivalMillis: Long,
    subSequenceNumber: Long = 0L,
    endsKinesisRecord: Boolean = true,
    recordId: Option[String] = None) {

  /** The position just after this record: inside its aggregate, or after the whole Kinesis record. */
  def positionAfter: ShardPosition.AfterSequence =
    if (endsKinesisRecord) ShardPosition.AfterSequence(sequenceNumber)
    else ShardPosition.AfterSequence(sequenceNumber, Some(subSequenceNumber))

  def isPast(position: ShardPosition): Boolean = ShardPosition.isPast(sequenceNumber, subSequenceNumber, position)

  /** What the record weighs against the read limits and the fetch buffer: data plus partition key, in bytes. */
  def bytes: Long = data.length.toLong + KinesisRecord.utf8Length(partitionKey)
}

object KinesisRecord {
  /** The length of `text` in UTF-8, as Kinesis counts a partition key, without encoding it. */
  def utf8Length(text: String): Int = {
    var length = 0
    var i = 0
    while (i < text.length) {
      val c = text.charAt(i)
      // A surrogate is half of a character that takes 4 bytes.
      length += (if (c < 0x80) 1 else if (c < 0x800 || Character.isSurrogate(c)) 2 else 3)
      i += 1
    }
    length
  }

  /** The [[KinesisRecord.bytes]] of `records` together. */
  def bytesOf(records: Iterable[KinesisRecord]): Long = {
    var total = 0L
    records.foreach(r => total += r.bytes)
    total
  }
}

/**
 * One GetRecords answer. `nextIterator` is empty when the shard is closed and read to its
 * end; `millisBehindLatest` is 0 when the reader has caught up with the tip. `dataLossEvents`
 * counts the times the reader found records deleted by retention before it read them.
 */
final case class RecordBatch(
    records: Seq[KinesisRecord],
    nextIterator: Option[String],
    millisBehindLatest: Long,
    kpl: KplCounts = KplCounts.Zero,
    dataLossEvents: Int = 0) {
  def bytes: Long = KinesisRecord.bytesOf(records)
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

  /**
   * Up to `limit` Kinesis records of `stream` from `iterator`, their KPL aggregates split into
   * user records; those whose hash key is outside the shard's range are kept or dropped as
   * `rangeCheck` says.
   */
  def getRecords(stream: String, iterator: String, limit: Int, rangeCheck: Option[RangeCheck]): RecordBatch
}

/** Kinesis refused a call for exceeding a rate limit; the caller waits and tries again. */
final class ThrottledException(message: String, cause: Throwable) extends RuntimeException(message, cause)

/** A shard iterator outlived its five minutes; the caller asks for a new one. */
final class IteratorExpiredException(message: String, cause: Throwable) extends RuntimeException(message, cause)
