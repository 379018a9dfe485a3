// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.sdk

import software.amazon.awssdk.services.kinesis.model.Record

import io.github.sparkkinesis.kpl.RangeCheck
import io.github.sparkkinesis.client.{KinesisRecord, KplCounts, UserRecords}

/**
 * Where records the SDK read become [[KinesisRecord]]s: those of GetRecords answers and
 * SubscribeToShard events the connector did not read itself ([[GetRecordsDecoding]],
 * [[SubscribeEventDecoding]]). Whatever must happen to every record read (such as
 * de-aggregating records the KPL packed together) belongs in [[UserRecords]], which every
 * read path goes through.
 */
object SdkRecords {
  /** The user records of `records` (KPL aggregates split, checked against the shard's `rangeCheck`), and what splitting found. */
  def toKinesisRecords(
      records: java.util.List[Record], rangeCheck: Option[RangeCheck]): (Seq[KinesisRecord], KplCounts) = {
    val out = new UserRecords.Expansion(rangeCheck, records.size)
    val each = records.iterator()
    while (each.hasNext) {
      val r = each.next()
      val arrival = r.approximateArrivalTimestamp()
      // The SDK made this array for this answer alone and nothing else writes to it: no copy needed.
      // A record without data (or with null) is empty, as the connector's own decoders read it.
      val data = if (r.data() == null) Array.emptyByteArray else r.data().asByteArrayUnsafe()
      out.add(r.partitionKey(), data, r.sequenceNumber(), if (arrival == null) 0L else arrival.toEpochMilli)
    }
    out.result()
  }
}
