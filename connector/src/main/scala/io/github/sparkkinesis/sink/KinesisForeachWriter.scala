// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{ForeachWriter, Row}
import org.apache.spark.sql.kinesis.KinesisQueryId
import org.apache.spark.sql.types.StructType

import io.github.sparkkinesis.client.{ConnectionConfig, KinesisPutApi, PutEntry}
import io.github.sparkkinesis.client.sdk.KinesisClients
import io.github.sparkkinesis.errors.KinesisErrors
import io.github.sparkkinesis.options.{KinesisOptions, KinesisSinkOptions}

/**
 * What the connector's foreach writers share: the sink's options, parsed and checked when the
 * writer is made (on the driver, as the query is defined), and each task's [[TaskPuts]], made
 * in `open` on the executor. `close` without an error returns only once Kinesis stored every
 * row the task processed, so a micro-batch or real-time batch commits only after its rows are
 * stored (at least once); with an error it drops what is queued, which the batch's re-run
 * sends again. With `recordIds`, a row's id starts with the streaming query's id (the one in
 * its checkpoint) and the batch (`epochId`) and partition `open` is given.
 */
sealed abstract class KinesisForeachSink[T](
    protected val options: KinesisSinkOptions,
    connect: ConnectionConfig => KinesisPutApi,
    queryId: () => Option[String] = () => KinesisQueryId.ofCurrentTask)
  extends ForeachWriter[T] {

  // One task's: each task gets its own copy of the writer, deserialized from the query's plan.
  @transient private var puts: TaskPuts = _

  /** The stream and the entry `value` becomes, checked as the sink checks a row. */
  protected def record(value: T): (String, PutEntry)

  override def open(partitionId: Long, epochId: Long): Boolean = {
    val ids = if (!options.put.recordIds) None
    else {
      val query = queryId().getOrElse(throw KinesisErrors.sinkInvalidValue(
          s"${KinesisOptions.RecordIds.name} needs the id of the streaming query the foreach writer runs in, " +
            "and this task has none: use the writer in a streaming query's foreach sink, or set recordIds to false"))
      Some(new TaskRecordIds(query, epochId, partitionId))
    }
    puts = new TaskPuts(options, connect(options.connection), ids = ids)
    true
  }

  override def process(value: T): Unit = {
    val (stream, entry) = record(value)
    puts.add(stream, entry)
  }

  override def close(errorOrNull: Throwable): Unit = if (puts != null) {
    val ending = puts
    puts = null
    try if (errorOrNull == null) ending.flush() else ending.abort()
    finally ending.close()
  }

  // Plans print the foreach sink's writer: name the target, never the credentials.
  override def toString: String =
    s"${getClass.getSimpleName}[${KinesisWrite.target(options)}]"
}

/**
 * Writes a streaming query's rows to Kinesis through Spark's foreach sink: the route to Kinesis
 * that Spark allows a real-time query (`trigger(realTime=...)`) with its sink check on.
 *
 * {{{
 * df.writeStream
 *   .foreach(KinesisForeachWriter(Map("streamName" -> "clean-events", "region" -> "us-east-1")))
 *   .outputMode("update")
 *   .trigger(Trigger.RealTime("5 seconds"))
 *   .start()
 * }}}
 *
 * Rows have the columns `format("kinesis")` writes: `data` (binary or string), `partitionKey`,
 * optionally `explicitHashKey`, and `stream` when no `streamName` is given; other columns are
 * ignored, so the source's rows can be written as they are. The options are the sink's
 * (`streamName`, `region`, credentials, `maxPutLinger`, ...); `maxPutLinger` defaults to
 * [[KinesisForeachWriter.DefaultPutLingerMs]] ms here, so a record a real-time query hands over
 * leaves at once. Each task batches, retries and keeps order per partition key as the sink does.
 */
final class KinesisForeachWriter private[sink] (
    parsed: KinesisSinkOptions,
    connect: ConnectionConfig => KinesisPutApi,
    queryId: () => Option[String] = () => KinesisQueryId.ofCurrentTask)
  extends KinesisForeachSink[Row](parsed, connect, queryId) {

  def this(options: Map[String, String]) = this(KinesisForeachWriter.parse(options), KinesisForeachWriter.shared)

  /** For Java and py4j callers. */
  def this(options: java.util.Map[String, String]) = this(options.asScala.toMap)

  // Found in the first row's schema, as the rows of a task share one.
  @transient private var columns: KinesisSinkColumns = _

  /**
   * Fails as `format("kinesis")` does when the DataFrame lacks a column the sink needs, or has
   * one of the wrong type: call it where the query is defined, so the error comes before the
   * query starts rather than from its first row.
   */
  def checkColumns(schema: StructType): this.type = {
    KinesisSinkColumns.resolve(schema, options.streamName.isDefined)
    this
  }

  override protected def record(row: Row): (String, PutEntry) = {
    if (columns == null) {
      if (row.schema == null) {
        throw KinesisErrors.sinkInvalidValue("the foreach writer got a row without a schema; write a " +
          "DataFrame with the columns partitionKey and data, or use KinesisForeachWriter.forPairs for a " +
          "Dataset[(String, Array[Byte])]")
      }
      columns = KinesisSinkColumns.resolve(row.schema, options.streamName.isDefined)
    }
    columns.record(row, options.streamName)
  }
}

/**
 * The foreach writer for a `Dataset[(String, Array[Byte])]` of (partition key, data) pairs, the
 * shape the Databricks Runtime's Kinesis foreach sink takes; every pair goes to `streamName`.
 */
final class KinesisPairForeachWriter private[sink] (
    parsed: KinesisSinkOptions,
    connect: ConnectionConfig => KinesisPutApi)
  extends KinesisForeachSink[(String, Array[Byte])](parsed, connect) {

  private val stream = options.streamName.getOrElse(
    throw KinesisErrors.missingOption(KinesisOptions.StreamName.name,
      "the foreach writer of (partitionKey, data) pairs writes every pair to one stream"))

  override protected def record(pair: (String, Array[Byte])): (String, PutEntry) =
    stream -> KinesisSinkColumns.entry(stream, pair._1, pair._2, None)
}

object KinesisForeachWriter {
  /**
   * The default `maxPutLinger` of the foreach writers (the sink's is 50 ms): they are the way of
   * real-time queries, whose rows come one at a time and should leave as they come.
   */
  val DefaultPutLingerMs = 5L

  /** A writer of DataFrame rows (see [[KinesisForeachWriter]]). */
  def apply(options: Map[String, String]): KinesisForeachWriter = new KinesisForeachWriter(options)

  /** A writer of (partition key, data) pairs to the stream `streamName` names. */
  def forPairs(options: Map[String, String]): KinesisPairForeachWriter =
    new KinesisPairForeachWriter(parse(options), shared)

  private[sink] def parse(options: Map[String, String]): KinesisSinkOptions =
    KinesisSinkOptions.parse(options, putLingerDefaultMs = Some(DefaultPutLingerMs))

  /** This executor's shared Kinesis client for the connection. */
  private[sink] val shared: ConnectionConfig => KinesisPutApi = KinesisClients.putApi
}
