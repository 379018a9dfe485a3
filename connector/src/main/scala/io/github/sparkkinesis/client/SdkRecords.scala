package io.github.sparkkinesis.client

import scala.jdk.CollectionConverters._

import software.amazon.awssdk.services.kinesis.model.Record

/**
 * The one place SDK records become [[KinesisRecord]]s, for every read path: GetRecords answers
 * and SubscribeToShard events. Whatever must happen to every record read (such as
 * de-aggregating records the KPL packed together) belongs here.
 */
object SdkRecords {
  def toKinesisRecords(records: java.util.List[Record]): Seq[KinesisRecord] =
    records.asScala.iterator.map { r =>
      KinesisRecord(r.partitionKey(), r.data().asByteArray(), r.sequenceNumber(),
        Option(r.approximateArrivalTimestamp()).map(_.toEpochMilli).getOrElse(0L))
    }.toVector
}
