// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.options

import org.apache.spark.network.util.JavaUtils

import io.github.sparkkinesis.client.{ConnectionConfig, KinesisPutApi}
import io.github.sparkkinesis.errors.KinesisErrors

/** How the sink groups records into PutRecords calls, and retries the records Kinesis refuses. */
final case class PutSettings(
    maxRecordsPerPut: Int,
    maxBytesPerPut: Long,
    maxInFlightPuts: Int,
    maxPutRetries: Int,
    retryBackoffMs: Long,
    maxRetryBackoffMs: Long,
    /** How long a record may wait for its PutRecords call to fill before it is sent anyway. */
    maxPutLingerMs: Long = KinesisSinkOptions.DefaultPutLingerMs,
    /** Rows bound for one shard are packed into KPL aggregates (`aggregation` = `kpl`). */
    aggregate: Boolean = false,
    /** Each partition key's records reach Kinesis in the order the task wrote them. */
    orderPerKey: Boolean = true,
    /** Every row carries an id the same each time Spark sends it again (`recordIds`). */
    recordIds: Boolean = false)

/**
 * The sink options, parsed and validated once, when the write is defined (`save()`,
 * `start()`). Without `streamName`, every row names its stream in a `stream` column.
 */
final case class KinesisSinkOptions(
    streamName: Option[String],
    connection: ConnectionConfig,
    put: PutSettings)

object KinesisSinkOptions {
  import KinesisOptions._

  /**
   * The largest KPL aggregate the sink builds (with the partition key it goes under): the limit
   * of every stream, so aggregates fit whatever the stream's own record size limit.
   */
  val MaxAggregateBytes: Long = KinesisPutApi.DefaultMaxRecordBytes

  /** maxPutLinger's default, from the registry. */
  val DefaultPutLingerMs: Long = JavaUtils.timeStringAsMs(MaxPutLinger.default.get)

  /**
   * Names Spark itself reads from a writer's options and hands to the sink along with its own:
   * they pass through unchecked, so `.option("checkpointLocation", ...)` works.
   */
  val SparkWriterOptions: Set[String] = Set("checkpointLocation", "queryName",
    "asyncProgressTrackingEnabled", "asyncProgressTrackingCheckpointIntervalMs",
    "_asyncProgressTrackingOverrideSinkSupportCheck")

  /**
   * Parses case-insensitive options; throws a [[io.github.sparkkinesis.errors.KinesisOptionException]].
   * `putLingerDefaultMs` replaces the registry's default of `maxPutLinger` where the writer has
   * another (the foreach writer's, for real-time queries).
   */
  def parse(options: Map[String, String], putLingerDefaultMs: Option[Long] = None): KinesisSinkOptions = {
    rejectMisplaced(options, Usage.Write, SparkWriterOptions)
    val values = new OptionValues(options)

    val stream = values.get(StreamName).map { text =>
      val name = text.trim
      if (!KinesisSourceOptions.StreamNamePattern.pattern.matcher(name).matches()) {
        throw values.invalid(StreamName, text,
          "one stream name of 1 to 128 letters, digits, '_', '.' " +
            "or '-' (to write to several streams, leave streamName out and name each row's stream " +
            "in a 'stream' column)")
      }
      name
    }
    val put = PutSettings(
      maxRecordsPerPut = values.int(MaxRecordsPerPut),
      maxBytesPerPut = values.bytes(MaxBytesPerPut),
      maxInFlightPuts = values.int(MaxInFlightPuts),
      maxPutRetries = values.int(MaxPutRetries),
      retryBackoffMs = values.durationMs(PutRetryBackoff),
      maxRetryBackoffMs = values.durationMs(MaxPutRetryBackoff),
      maxPutLingerMs = putLingerDefaultMs.filterNot(_ => values.isSet(MaxPutLinger))
        .getOrElse(values.durationMs(MaxPutLinger)),
      aggregate = values.choice(Aggregation) == "kpl",
      orderPerKey = values.boolean(OrderPerKey),
      recordIds = values.boolean(RecordIds))
    if (put.maxRetryBackoffMs < put.retryBackoffMs) {
      throw KinesisErrors.conflictingOptions(Seq(PutRetryBackoff, MaxPutRetryBackoff).map(values.name),
        s"maxPutRetryBackoff (${put.maxRetryBackoffMs}ms) must be at least putRetryBackoff " +
          s"(${put.retryBackoffMs}ms)")
    }
    val connection = ConnectionOptions.parse(values)
    KinesisSinkOptions(stream, connection, put)
  }
}
