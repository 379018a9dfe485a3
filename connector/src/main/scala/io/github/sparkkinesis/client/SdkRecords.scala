package io.github.sparkkinesis.client

import software.amazon.awssdk.services.kinesis.model.Record

import io.github.sparkkinesis.kpl.HashKeyRange

/**
 * The one place SDK records become [[KinesisRecord]]s, for every read path: GetRecords answers
 * and SubscribeToShard events. Whatever must happen to every record read (such as
 * de-aggregating records the KPL packed together) belongs here.
 */
object SdkRecords {
  /** The user records of `records` (KPL aggregates split, checked against the shard's `hashRange`), and what splitting found. */
  def toKinesisRecords(
      records: java.util.List[Record], hashRange: Option[HashKeyRange]): (Seq[KinesisRecord], KplCounts) = {
    val out = new UserRecords.Expansion(hashRange, records.size)
    val each = records.iterator()
    while (each.hasNext) {
      val r = each.next()
      val arrival = r.approximateArrivalTimestamp()
      // The SDK made this array for this answer alone and nothing else writes to it: no copy needed.
      out.add(r.partitionKey(), r.data().asByteArrayUnsafe(), r.sequenceNumber(),
        if (arrival == null) 0L else arrival.toEpochMilli)
    }
    out.result()
  }
}
