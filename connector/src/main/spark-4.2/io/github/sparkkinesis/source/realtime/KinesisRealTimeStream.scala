// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source.realtime

import java.util.Optional

import org.apache.spark.SparkContext
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReaderFactory}
import org.apache.spark.sql.connector.read.streaming._

import io.github.sparkkinesis.client.KinesisApi
import io.github.sparkkinesis.client.sdk.KinesisClients
import io.github.sparkkinesis.options.KinesisSourceOptions
import io.github.sparkkinesis.offsets.KinesisSourceOffset
import io.github.sparkkinesis.source.KinesisMicroBatchStream

/**
 * The `kinesis` stream of a Spark that has real-time mode (`SupportsRealTimeMode`). Spark
 * tells a stream it runs in real-time mode only after making it, so this one starts as the
 * micro-batch stream (prefetching, every trigger but realTime) and switches to
 * [[RealTimeReads]] when `prepareForRealTimeMode` is called, before the first batch. Both
 * modes keep the same offsets in the checkpoint, so a query can move between them.
 */
final class KinesisRealTimeStream(
    options: KinesisSourceOptions,
    metadataPath: String,
    api: => KinesisApi,
    sparkContext: => SparkContext)
  extends MicroBatchStream with SupportsTriggerAvailableNow with ReportsSourceMetrics with SupportsRealTimeMode {

  def this(options: KinesisSourceOptions, metadataPath: String) =
    this(options, metadataPath, KinesisClients.api(options.connection), SparkSession.active.sparkContext)

  private val name = s"KinesisV2[${options.streamNames.mkString(",")}]"
  private lazy val kinesis = api
  private val microBatch = new KinesisMicroBatchStream(options, metadataPath, kinesis, sparkContext)
  private var realTime: Option[RealTimeReads] = None

  /** Called by Spark for a realTime trigger; options that cannot apply are refused here. */
  override def prepareForRealTimeMode(): Unit = {
    val reads = new RealTimeReads(options, kinesis, sparkContext, name)
    // Spark does not stop a source whose preparation failed: what this stream holds goes now.
    try reads.checkOptions()
    catch { case e: Throwable => microBatch.stop(); throw e }
    realTime = Some(reads)
  }

  override def initialOffset(): Offset = microBatch.initialOffset()

  override def deserializeOffset(json: String): Offset = microBatch.deserializeOffset(json)

  override def getDefaultReadLimit: ReadLimit = microBatch.getDefaultReadLimit

  override def latestOffset(): Offset = microBatch.latestOffset()

  override def reportLatestOffset(): Offset = if (realTime.isEmpty) microBatch.reportLatestOffset() else null

  override def latestOffset(start: Offset, limit: ReadLimit): Offset = realTime match {
    case Some(reads) => reads.latestOffset(start.asInstanceOf[KinesisSourceOffset])
    case None => microBatch.latestOffset(start, limit)
  }

  override def prepareForTriggerAvailableNow(): Unit = microBatch.prepareForTriggerAvailableNow()

  override def planInputPartitions(start: Offset, end: Offset): Array[InputPartition] =
    microBatch.planInputPartitions(start, end)

  override def planInputPartitions(start: Offset): Array[InputPartition] =
    reads.plan(start.asInstanceOf[KinesisSourceOffset]).toArray

  override def mergeOffsets(offsets: Array[PartitionOffset]): Offset =
    reads.merge(offsets.toSeq.map(_.asInstanceOf[ShardPartitionOffset]))

  override def createReaderFactory(): PartitionReaderFactory = realTime match {
    case Some(_) => new KinesisRealTimeReaderFactory(options.connection, options.fetch)
    case None => microBatch.createReaderFactory()
  }

  // Real-time mode buffers nothing on the driver's behalf: nothing to release.
  override def commit(end: Offset): Unit = if (realTime.isEmpty) microBatch.commit(end)

  override def metrics(latestConsumedOffset: Optional[Offset]): java.util.Map[String, String] = realTime match {
    case Some(reads) =>
      import scala.jdk.CollectionConverters._
      reads.metrics.asJava
    case None => microBatch.metrics(latestConsumedOffset)
  }

  /**
   * In real-time mode the reads stop (readers here and on the executors), and the micro-batch
   * stream this one started as lets go of what it holds: the driver's clients, and whatever it
   * prefetched before the switch.
   */
  override def stop(): Unit =
    try realTime.foreach(_.stop())
    finally microBatch.stop()

  override def toString: String = name

  private def reads: RealTimeReads =
    realTime.getOrElse(throw new IllegalStateException(s"$name was asked for a real-time plan outside real-time mode"))
}
