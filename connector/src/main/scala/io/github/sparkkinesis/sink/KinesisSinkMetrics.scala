// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import java.util.concurrent.atomic.AtomicLong

import org.apache.spark.sql.connector.metric.{CustomMetric, CustomSumMetric, CustomTaskMetric}

/**
 * What the sink counts, per task while it writes (Spark's SQL metrics, summed over tasks) and
 * per micro-batch (a streaming query's `sink.metrics` in its progress).
 */
object KinesisSinkMetrics {
  val RecordsWritten = "recordsWritten"
  val KinesisRecordsWritten = "kinesisRecordsWritten"
  val BytesWritten = "bytesWritten"
  val PutRequests = "putRequests"
  val PutRetries = "putRetries"
  val ThrottledRecords = "throttledRecords"
  val FailedRecords = "failedRecords"

  val names: Seq[String] = Seq(RecordsWritten, KinesisRecordsWritten, BytesWritten, PutRequests, PutRetries,
    ThrottledRecords, FailedRecords)

  /** The metrics Spark shows for a Kinesis write; Spark instantiates each class by name. */
  def supported: Array[CustomMetric] = Array(new RecordsWrittenMetric, new KinesisRecordsWrittenMetric,
    new BytesWrittenMetric, new PutRequestsMetric, new PutRetriesMetric, new ThrottledRecordsMetric,
    new FailedRecordsMetric)
}

class RecordsWrittenMetric extends CustomSumMetric {
  override def name(): String = KinesisSinkMetrics.RecordsWritten
  override def description(): String = "rows written to Kinesis"
}

class KinesisRecordsWrittenMetric extends CustomSumMetric {
  override def name(): String = KinesisSinkMetrics.KinesisRecordsWritten
  override def description(): String = "Kinesis records written (a KPL aggregate of many rows counts once)"
}

class BytesWrittenMetric extends CustomSumMetric {
  override def name(): String = KinesisSinkMetrics.BytesWritten
  override def description(): String = "bytes of the rows written (data + partition keys)"
}

class PutRequestsMetric extends CustomSumMetric {
  override def name(): String = KinesisSinkMetrics.PutRequests
  override def description(): String = "PutRecords calls"
}

class PutRetriesMetric extends CustomSumMetric {
  override def name(): String = KinesisSinkMetrics.PutRetries
  override def description(): String = "Kinesis records sent again after Kinesis refused them"
}

class ThrottledRecordsMetric extends CustomSumMetric {
  override def name(): String = KinesisSinkMetrics.ThrottledRecords
  override def description(): String = "Kinesis records refused for throttling (each refusal counted)"
}

class FailedRecordsMetric extends CustomSumMetric {
  override def name(): String = KinesisSinkMetrics.FailedRecords
  override def description(): String = "rows given up after every retry (their task failed)"
}

/** The counters of one writer; the calls in flight update them from their own threads. */
final class KinesisSinkCounters {
  val recordsWritten = new AtomicLong
  val kinesisRecordsWritten = new AtomicLong
  val bytesWritten = new AtomicLong
  val putRequests = new AtomicLong
  val putRetries = new AtomicLong
  val throttledRecords = new AtomicLong
  val failedRecords = new AtomicLong

  def snapshot: Map[String, Long] = {
    import KinesisSinkMetrics._
    Map(RecordsWritten -> recordsWritten.get, KinesisRecordsWritten -> kinesisRecordsWritten.get,
      BytesWritten -> bytesWritten.get,
      PutRequests -> putRequests.get, PutRetries -> putRetries.get,
      ThrottledRecords -> throttledRecords.get, FailedRecords -> failedRecords.get)
  }

  def taskMetrics: Array[CustomTaskMetric] = snapshot.map { case (metric, count) =>
    new CustomTaskMetric {
      override def name(): String = metric
      override def value(): Long = count
    }: CustomTaskMetric
  }.toArray
}
