package io.github.sparkkinesis

import java.util

import org.apache.spark.sql.connector.catalog.{SupportsRead, TableCapability}
import org.apache.spark.sql.connector.read.{Batch, Scan, ScanBuilder}
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import io.github.sparkkinesis.options.KinesisSourceOptions
import io.github.sparkkinesis.client.KinesisClients
import io.github.sparkkinesis.source.{KinesisBatch, KinesisMicroBatchStream}

/** The streams named in the options, readable as a micro-batch stream. */
class KinesisTable(options: KinesisSourceOptions) extends SupportsRead {
  override def name(): String = s"KinesisV2[${options.streamNames.mkString(",")}]"

  // Spark prints the table object in plans; the options (and their secrets) stay out of it.
  override def toString: String = name()

  override def schema(): StructType = KinesisSchema.schema

  override def capabilities(): util.Set[TableCapability] =
    util.EnumSet.of(TableCapability.MICRO_BATCH_READ, TableCapability.BATCH_READ)

  override def newScanBuilder(ignored: CaseInsensitiveStringMap): ScanBuilder = () => new KinesisScan(options)
}

/** The scan; its description is what `explain` and the progress report show (no secrets). */
class KinesisScan(options: KinesisSourceOptions) extends Scan {
  override def readSchema(): StructType = KinesisSchema.schema

  override def description(): String = s"KinesisV2[${options.streamNames.mkString(",")}]"

  override def toString: String = description()

  override def toMicroBatchStream(checkpointLocation: String): MicroBatchStream =
    new KinesisMicroBatchStream(options, checkpointLocation)

  override def toBatch: Batch = new KinesisBatch(options, KinesisClients.api(options.connection))
}
