package io.github.sparkkinesis.client

import io.github.sparkkinesis.kpl.{Deaggregator, HashKeyRange}

/** What splitting KPL aggregates found: aggregates passed on whole as corrupt, user records dropped for their hash key. */
final case class KplCounts(corruptAggregates: Long, outOfRangeRecords: Long, firstCorruption: Option[String] = None) {
  def +(other: KplCounts): KplCounts = KplCounts(corruptAggregates + other.corruptAggregates,
    outOfRangeRecords + other.outOfRangeRecords, firstCorruption.orElse(other.firstCorruption))
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

  def expand(raw: Iterable[Raw], hashRange: Option[HashKeyRange]): (Vector[KinesisRecord], KplCounts) = {
    val out = Vector.newBuilder[KinesisRecord]
    var counts = KplCounts.Zero
    raw.foreach { r =>
      val split = Deaggregator(r.partitionKey, r.data, hashRange)
      val last = split.records.size - 1
      split.records.iterator.zipWithIndex.foreach { case (u, i) =>
        out += KinesisRecord(u.partitionKey, u.data, r.sequenceNumber, r.arrivalMillis, u.subSequenceNumber,
          endsKinesisRecord = i == last)
      }
      counts = counts + KplCounts(split.corrupt.size.toLong, split.outOfRange.toLong,
        split.corrupt.map(reason => s"record ${r.sequenceNumber} has the KPL magic bytes but $reason"))
    }
    (out.result(), counts)
  }
}
