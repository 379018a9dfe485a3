package io.github.sparkkinesis.client

import scala.jdk.CollectionConverters._

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
      records: java.util.List[Record], hashRange: Option[HashKeyRange]): (Vector[KinesisRecord], KplCounts) =
    UserRecords.expand(
      records.asScala.map { r =>
        UserRecords.Raw(r.partitionKey(), r.data().asByteArray(), r.sequenceNumber(),
          Option(r.approximateArrivalTimestamp()).map(_.toEpochMilli).getOrElse(0L))
      }, hashRange)
}
