// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.metric.CustomTaskMetric
import org.apache.spark.sql.connector.write.{DataWriter, WriterCommitMessage}

import io.github.sparkkinesis.client.KinesisPutApi
import io.github.sparkkinesis.options.KinesisSinkOptions
import io.github.sparkkinesis.time.{Clock, SystemClock}

/**
 * Writes one task's rows to Kinesis. Each row is checked and queued as it comes; `commit`
 * returns only once Kinesis stored every record, and reports the task's counts to the driver.
 */
final class KinesisDataWriter(
    columns: KinesisSinkColumns,
    options: KinesisSinkOptions,
    api: KinesisPutApi,
    clock: Clock = SystemClock,
    ids: Option[TaskRecordIds] = None)
  extends DataWriter[InternalRow] {

  private val puts = new TaskPuts(options, api, clock, ids)

  override def write(row: InternalRow): Unit = {
    val (stream, entry) = columns.record(row, options.streamName)
    puts.add(stream, entry)
  }

  override def commit(): WriterCommitMessage = {
    puts.flush()
    KinesisWriterCommitMessage(puts.counters.snapshot)
  }

  override def abort(): Unit = puts.abort()

  override def close(): Unit = puts.close()

  override def currentMetricsValues(): Array[CustomTaskMetric] = puts.counters.taskMetrics
}

/** A task's counts (see [[KinesisSinkMetrics]]), sent to the driver when the task commits. */
final case class KinesisWriterCommitMessage(counts: Map[String, Long]) extends WriterCommitMessage

object KinesisWriterCommitMessage {
  /** The counts of several tasks added up; every metric is present, zero when nothing happened. */
  def total(messages: Seq[WriterCommitMessage]): Map[String, Long] = {
    val zero = KinesisSinkMetrics.names.map(_ -> 0L).toMap
    messages.collect { case KinesisWriterCommitMessage(counts) => counts }
      .foldLeft(zero)((sum, counts) => sum.map { case (k, v) => k -> (v + counts.getOrElse(k, 0L)) })
  }
}
