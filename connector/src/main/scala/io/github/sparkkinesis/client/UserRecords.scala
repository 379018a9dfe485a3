// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client

import io.github.sparkkinesis.kpl.{Deaggregator, KplEnvelope, RangeCheck}

/**
 * What splitting KPL aggregates found: aggregates passed on whole as corrupt, user records
 * outside their shard's hash-key range, and how many of those were dropped (option
 * `outOfRangeUserRecords`).
 */
final case class KplCounts(corruptAggregates: Long, outOfRangeRecords: Long, firstCorruption: Option[String] = None,
    droppedRecords: Long = 0L) {
  def +(other: KplCounts): KplCounts = KplCounts(corruptAggregates + other.corruptAggregates,
    outOfRangeRecords + other.outOfRangeRecords, firstCorruption.orElse(other.firstCorruption),
    droppedRecords + other.droppedRecords)
}

object KplCounts {
  val Zero: KplCounts = KplCounts(0L, 0L)
}

/**
 * Where Kinesis records become the connector's records, in every read path (GetRecords and
 * enhanced fan-out alike): each KPL aggregate becomes its user records (ARCHITECTURE.md
 * invariant 1: they are numbered, so offsets can stop between them).
 */
object UserRecords {

  /** One Kinesis record as the SDK gave it. */
  final case class Raw(partitionKey: String, data: Array[Byte], sequenceNumber: String, arrivalMillis: Long)

  def expand(raw: Iterable[Raw], rangeCheck: Option[RangeCheck]): (Seq[KinesisRecord], KplCounts) = {
    val out = new Expansion(rangeCheck, raw.size)
    raw.foreach(r => out.add(r.partitionKey, r.data, r.sequenceNumber, r.arrivalMillis))
    out.result()
  }

  /**
   * A record without one of the fields every Kinesis record has (the answer is well-formed, but
   * not what Kinesis sends). The SDK adapter reports it as an answer the SDK cannot read.
   */
  def withoutField(field: String, index: Int, sequenceNumber: String): RecordWithoutField =
    new RecordWithoutField(s"Record ${index + 1} of the answer" +
      Option(sequenceNumber).fold("")(s => s" (sequence number $s)") +
      s" has no $field, which every Kinesis record has: the endpoint is not answering as Kinesis does")

  /**
   * The user records of Kinesis records added one by one, in order. A record without the KPL
   * magic bytes is its own user record: it skips the de-aggregator, as most records do. A record
   * without a sequence number or partition key is [[withoutField]].
   */
  final class Expansion(rangeCheck: Option[RangeCheck], expectedRecords: Int) {
    private val out = Vector.newBuilder[KinesisRecord]
    out.sizeHint(expectedRecords)
    private var counts = KplCounts.Zero
    private var added = 0

    def add(partitionKey: String, data: Array[Byte], sequenceNumber: String, arrivalMillis: Long): Unit = {
      if (sequenceNumber == null) throw withoutField("SequenceNumber", added, null)
      if (partitionKey == null) throw withoutField("PartitionKey", added, sequenceNumber)
      added += 1
      expand(partitionKey, data, sequenceNumber, arrivalMillis)
    }

    private def expand(partitionKey: String, data: Array[Byte], sequenceNumber: String, arrivalMillis: Long): Unit =
      if (!KplEnvelope.hasMagic(data)) out += KinesisRecord(partitionKey, data, sequenceNumber, arrivalMillis)
      else {
        val split = Deaggregator(partitionKey, data, rangeCheck)
        val last = split.records.size - 1
        var i = 0
        while (i <= last) {
          val u = split.records(i)
          out += KinesisRecord(u.partitionKey, u.data, sequenceNumber, arrivalMillis, u.subSequenceNumber,
            endsKinesisRecord = i == last, recordId = u.recordId)
          i += 1
        }
        counts = counts + KplCounts(split.corrupt.size.toLong, split.outOfRange.toLong,
          split.corrupt.map(reason => s"record $sequenceNumber has the KPL magic bytes but $reason"),
          split.dropped.toLong)
      }

    def result(): (Seq[KinesisRecord], KplCounts) = (out.result(), counts)
  }
}

/** An answer's record lacks a field every Kinesis record has ([[UserRecords.withoutField]]). */
final class RecordWithoutField(message: String) extends RuntimeException(message)
