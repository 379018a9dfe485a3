// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis

import java.util

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.connector.catalog.{SupportsRead, SupportsWrite, TableCapability}
import org.apache.spark.sql.connector.read.{Batch, Scan, ScanBuilder}
import org.apache.spark.sql.connector.read.streaming.{MicroBatchStream, ReportsSinkMetrics}
import org.apache.spark.sql.connector.write.{LogicalWriteInfo, WriteBuilder}
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import io.github.sparkkinesis.client.sdk.KinesisClients
import io.github.sparkkinesis.errors.KinesisErrors
import io.github.sparkkinesis.options.{KinesisSinkOptions, KinesisSourceOptions}
import io.github.sparkkinesis.sink.{KinesisSinkProgress, KinesisWrite, KinesisWriteBuilder}
import io.github.sparkkinesis.source.KinesisBatch
import io.github.sparkkinesis.source.realtime.StreamingReads

/**
 * The `kinesis` format as Spark sees it: streams to read as a micro-batch stream, or to write
 * to in batch and streaming queries. A table is made for one use, whose options were checked
 * when the DataFrame or the write was defined (see [[KinesisSourceProvider]]).
 */
final class KinesisTable private (use: KinesisTable.Use, batchWrite: Boolean = false)
  extends SupportsRead with SupportsWrite with ReportsSinkMetrics {
  import KinesisTable._

  private val progress = new KinesisSinkProgress

  override def name(): String = use match {
    case ForRead(options) => s"KinesisV2[${options.streamNames.mkString(",")}]"
    case ForWrite(options, _) => KinesisWrite.target(options)
  }

  /** What a read returns, or (for a write) the columns of the DataFrame written. */
  override def schema(): StructType = use match {
    case ForRead(options) => KinesisSchema.of(options)
    case ForWrite(_, written) => written
  }

  // ACCEPT_ANY_SCHEMA: the sink takes any DataFrame with the columns it needs and checks them
  // itself, so Spark does not match the written columns against schema(). BATCH_WRITE only
  // for the table KinesisBatchSave writes through (it says why).
  override def capabilities(): util.Set[TableCapability] = {
    val capabilities = util.EnumSet.of(TableCapability.MICRO_BATCH_READ, TableCapability.BATCH_READ,
      TableCapability.STREAMING_WRITE, TableCapability.ACCEPT_ANY_SCHEMA)
    if (batchWrite) capabilities.add(TableCapability.BATCH_WRITE)
    capabilities
  }

  override def newScanBuilder(ignored: CaseInsensitiveStringMap): ScanBuilder = use match {
    case ForRead(options) => () =>
        new KinesisScan(options)
      // Spark makes a table without inferring its schema only for writes, and for reads given a
    // schema with .schema(...): the source's is fixed.
    case ForWrite(_, written) => throw KinesisErrors.sourceSchemaGiven(KinesisSchema.schema.simpleString)
  }

  override def newWriteBuilder(info: LogicalWriteInfo): WriteBuilder = {
    val options = use match {
      case ForWrite(options, _) => options
      // Spark infers the schema of reads only; should it ever do so for a write, check its options now.
      case ForRead(_) => KinesisSinkOptions.parse(info.options().asCaseSensitiveMap().asScala.toMap)
    }
    new KinesisWriteBuilder(options, info.schema(), progress, info.queryId())
  }

  /** The counts of the last micro-batch written, shown as `sink.metrics` in a query's progress. */
  override def metrics(): util.Map[String, String] = progress.metrics.asJava

  override def toString: String = name()
}

object KinesisTable {
  private sealed trait Use
  private final case class ForRead(options: KinesisSourceOptions) extends Use
  private final case class ForWrite(options: KinesisSinkOptions, written: StructType) extends Use

  def forRead(options: KinesisSourceOptions): KinesisTable = new KinesisTable(ForRead(options))

  /**
   * Fails, naming the column, unless `written` has the columns the sink needs. `batch`: the
   * table offers batch writes (see KinesisBatchSave).
   */
  def forWrite(options: KinesisSinkOptions, written: StructType, batch: Boolean = false): KinesisTable = {
    sink.KinesisSinkColumns.resolve(written, options.streamName.isDefined)
    new KinesisTable(ForWrite(options, written), batch)
  }
}

/** The scan; its description is what `explain` and the progress report show (no secrets). */
class KinesisScan(options: KinesisSourceOptions) extends Scan {
  override def readSchema(): StructType = KinesisSchema.of(options)

  override def description(): String = s"KinesisV2[${options.streamNames.mkString(",")}]"

  override def toString: String = description()

  override def toMicroBatchStream(checkpointLocation: String): MicroBatchStream =
    StreamingReads.microBatchStream(options, checkpointLocation)

  override def toBatch: Batch = new KinesisBatch(options, KinesisClients.api(options.connection))
}
