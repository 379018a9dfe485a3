// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import java.util.concurrent.atomic.AtomicReference

import org.apache.spark.internal.Logging
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.metric.CustomMetric
import org.apache.spark.sql.connector.write.{
  BatchWrite, DataWriter, DataWriterFactory, PhysicalWriteInfo, Write, WriterCommitMessage
}
import org.apache.spark.sql.connector.write.streaming.{StreamingDataWriterFactory, StreamingWrite}
import org.apache.spark.sql.kinesis.KinesisUpdateAsAppend
import org.apache.spark.sql.types.StructType

import io.github.sparkkinesis.client.sdk.KinesisClients
import io.github.sparkkinesis.options.KinesisSinkOptions

/**
 * A write of `df.write` or `df.writeStream` to Kinesis. Its columns were checked when the write
 * was defined; they are found again here in the schema Spark plans the write with. A stream
 * takes the append and update output modes alike: every row a batch hands over is sent.
 */
/**
 * `queryId` is the write's: for a streaming query the id in its checkpoint (the same after a
 * restart), for `df.write` one made for that write alone; it starts the ids of `recordIds`.
 */
final class KinesisWriteBuilder(options: KinesisSinkOptions, schema: StructType, progress: KinesisSinkProgress,
    queryId: String)
  extends KinesisUpdateAsAppend {
  override def build(): Write =
    new KinesisWrite(options, KinesisSinkColumns.resolve(schema, options.streamName.isDefined), progress, queryId)
}

final class KinesisWrite(options: KinesisSinkOptions, columns: KinesisSinkColumns, progress: KinesisSinkProgress,
    queryId: String)
  extends Write {

  private def factory = new KinesisDataWriterFactory(columns, options, queryId)

  override def description(): String = KinesisWrite.target(options)

  override def toBatch: BatchWrite = new KinesisBatchWrite(factory, description())

  override def toStreaming: StreamingWrite = new KinesisStreamingWrite(factory, description(), progress)

  override def supportedCustomMetrics(): Array[CustomMetric] = KinesisSinkMetrics.supported
}

object KinesisWrite {
  /** What a write goes to, for plans, logs and the progress report. */
  def target(options: KinesisSinkOptions): String =
    s"KinesisV2[${options.streamName.getOrElse("column stream")}]"
}

/**
 * Kinesis has nothing to commit or undo: records are stored when PutRecords returns. So tasks
 * commit without asking the driver, and a failed write leaves what it sent (at-least-once).
 */
final class KinesisBatchWrite(factory: KinesisDataWriterFactory, target: String)
  extends BatchWrite with Logging {
  override def createBatchWriterFactory(info: PhysicalWriteInfo): DataWriterFactory = factory

  override def useCommitCoordinator(): Boolean = false

  override def commit(messages: Array[WriterCommitMessage]): Unit = {
    val total = KinesisWriterCommitMessage.total(messages.toSeq)
    logInfo(s"Wrote to $target: ${KinesisSinkProgress.describe(total)}")
  }

  override def abort(messages: Array[WriterCommitMessage]): Unit =
    logWarning(s"The write to $target failed; records sent before the failure stay in Kinesis")
}

final class KinesisStreamingWrite(factory: KinesisDataWriterFactory, target: String, progress: KinesisSinkProgress)
  extends StreamingWrite with Logging {
  override def createStreamingWriterFactory(info: PhysicalWriteInfo): StreamingDataWriterFactory = factory

  override def useCommitCoordinator(): Boolean = false

  override def commit(epochId: Long, messages: Array[WriterCommitMessage]): Unit = {
    val total = KinesisWriterCommitMessage.total(messages.toSeq)
    progress.set(total)
    logInfo(s"Batch $epochId wrote to $target: ${KinesisSinkProgress.describe(total)}")
  }

  override def abort(epochId: Long, messages: Array[WriterCommitMessage]): Unit =
    logWarning(s"Batch $epochId to $target failed; records sent before the failure stay in Kinesis " +
      "and are sent again when the batch is re-run")
}

/**
 * Creates each task's writer on its executor, with that JVM's shared Kinesis client. A batch
 * write (`df.write`) is one batch: its ids (`recordIds`) count it as batch 0.
 */
final class KinesisDataWriterFactory(columns: KinesisSinkColumns, options: KinesisSinkOptions, queryId: String)
  extends DataWriterFactory with StreamingDataWriterFactory {

  override def createWriter(partitionId: Int, taskId: Long): DataWriter[InternalRow] =
    createWriter(partitionId, taskId, 0L)

  override def createWriter(partitionId: Int, taskId: Long, epochId: Long): DataWriter[InternalRow] = {
    val ids = if (options.put.recordIds) Some(new TaskRecordIds(queryId, epochId, partitionId)) else None
    new KinesisDataWriter(columns, options, KinesisClients.putApi(options.connection), ids = ids)
  }
}

/** The counts of the last micro-batch a streaming write committed, for the query's progress. */
final class KinesisSinkProgress {
  private val last = new AtomicReference[Map[String, Long]](Map.empty)

  def set(counts: Map[String, Long]): Unit = last.set(counts)

  def metrics: Map[String, String] = last.get.map { case (k, v) => k -> v.toString }
}

object KinesisSinkProgress {
  def describe(counts: Map[String, Long]): String = {
    import KinesisSinkMetrics._
    s"${counts(RecordsWritten)} rows, ${counts(BytesWritten)} bytes in ${counts(KinesisRecordsWritten)} " +
      s"Kinesis records and ${counts(PutRequests)} PutRecords calls; ${counts(PutRetries)} records sent again, " +
      s"${counts(ThrottledRecords)} refusals for throttling"
  }
}
