// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.tools

import java.io.PrintStream
import java.time.{Instant, OffsetDateTime, ZoneOffset}
import java.time.format.{DateTimeFormatter, DateTimeParseException}

import scala.util.Try
import scala.util.control.NonFatal

import io.github.sparkkinesis.client.{ConnectionConfig, KinesisApi}
import io.github.sparkkinesis.client.sdk.KinesisClients
import io.github.sparkkinesis.errors.KinesisError
import io.github.sparkkinesis.offsets.{KinesisOffsetJson, KinesisSourceOffset, ShardKey, ShardPosition}
import io.github.sparkkinesis.options.{ConnectionOptions, KinesisOptions, OptionValues}

/**
 * `offsets show | import | at-timestamp`: a query's progress, and carrying another connector's
 * over (docs/migrating.md). Run it with `spark-submit --class io.github.sparkkinesis.tools.OffsetsTool
 * <connector jar> show <checkpoint>`, with `java` on a classpath of the jar and Spark's jars, or as
 * `python -m pyspark_kinesis offsets`, which runs this class. Results go to standard output
 * (the JSON of import and at-timestamp alone, for scripts), explanations to standard error.
 */
object OffsetsTool {
  val ExitOk = 0
  val ExitFailed = 1
  val ExitUsage = 2

  def main(args: Array[String]): Unit = sys.exit(run(args.toSeq, System.out, System.err))

  /** Runs one command; `apiFor` reaches Kinesis (tests put a fake behind it). Returns the exit code. */
  def run(args: Seq[String], out: PrintStream, err: PrintStream,
      apiFor: ConnectionConfig => KinesisApi = KinesisClients.api): Int =
    try {
      ToolArguments.parse(args) match {
        case None => out.println(ToolArguments.Usage)
        case Some(parsed) =>
          parsed.command match {
            case "show" => show(parsed, out, apiFor)
            case "import" => importProgress(parsed, out, err)
            case "at-timestamp" => atTimestamp(parsed, out, err, apiFor)
          }
      }
      ExitOk
    } catch {
      case e: ToolError =>
        err.println(s"error: ${e.getMessage}")
        if (e.usage) err.println(ToolArguments.Usage.split("\n").takeWhile(_.nonEmpty).mkString("\n"))
        if (e.usage) ExitUsage else ExitFailed
      case NonFatal(e) =>
        err.println(s"error: ${Option(e.getMessage).getOrElse(e.toString)}")
        ExitFailed
    }

  private def show(args: ToolArguments, out: PrintStream, apiFor: ConnectionConfig => KinesisApi): Unit = {
    val kinesis = connection(args)
    val checkpoint = new SparkCheckpoint(args.argument)
    val batch = checkpoint.batch(checkpoint.lastCommitted)
    val ours = batch.offsets.flatMap(json => Try(KinesisOffsetJson.read(json)).toOption)
    if (ours.isEmpty) {
      val foreign = batch.offsets.exists(_.contains("\"metadata\""))
      throw new ToolError(s"${batch.file} holds no offset of this connector's source" +
        (if (foreign) ": it looks like a qubole or awslabs checkpoint; carry its progress over with " +
           s"offsets import ${args.argument} --from qubole|awslabs"
         else ""))
    }
    out.println(s"Checkpoint ${args.argument}: batch ${batch.id} committed, planned at " +
      s"${Instant.ofEpochMilli(batch.plannedAtMs)}.")
    checkpoint.lastPlanned.filter(_ > batch.id).foreach { planned =>
      out.println(s"Batch $planned is planned but not committed: the query reads it again when it restarts.")
    }
    val positions = ours.map(_.shards).reduce(_ ++ _)
    val lag = kinesis.map(c => withApi(c, apiFor)(api => ShardLag.of(api, positions)))
    out.println(OffsetsTable.render(positions, lag))
    val failures = lag.toSeq.flatMap(_.values.collect { case Left(reason) => reason })
    failures.headOption.foreach { reason =>
      val others = failures.distinct.size - 1
      out.println(s"How far behind ${failures.size} shard(s) are is unknown: $reason" +
        (if (others > 0) s" (and $others other errors)" else ""))
    }
    if (lag.isEmpty) {
      out.println("How far behind each shard is: not asked; give --region or --endpoint-url (AWS credentials " +
        "come from the default chain).")
    }
  }

  private def importProgress(args: ToolArguments, out: PrintStream, err: PrintStream): Unit = {
    val from = args.flag("--from").getOrElse(throw new ToolError(
        s"import needs --from, one of ${ForeignConnector.all.map(_.name).mkString(", ")}", usage = true))
    val connector = ForeignConnector.named(from).getOrElse(throw new ToolError(
        s"--from $from: the connectors whose progress can be imported are " +
          ForeignConnector.all.map(c => s"${c.name} (${c.project})").mkString(", "), usage = true))
    val progress = ForeignCheckpoint.read(new SparkCheckpoint(args.argument), connector, args.flag("--stream"),
      args.flag("--metadata-path"))
    val positions = progress.positions.map { case (shard, p) => ShardKey(progress.stream, shard) -> p }
    out.println(KinesisOffsetJson.write(KinesisSourceOffset(positions)))
    progress.notes.foreach(note => err.println(s"note: $note"))
    val ended = positions.values.count(_.isInstanceOf[ShardPosition.ShardEnd])
    err.println(
      s"${connector.name} checkpoint ${args.argument}: stream '${progress.stream}', batch ${progress.batch} " +
        s"committed; ${positions.size} shards, $ended of them read to their end. Start the new query with a new " +
        "checkpointLocation and this JSON as its initialPosition: it reads every record after those committed, once. " +
        "Shards not named (new ones) start at trim_horizon; those the named ones descend from are not read again.")
  }

  private def atTimestamp(args: ToolArguments, out: PrintStream, err: PrintStream,
      apiFor: ConnectionConfig => KinesisApi): Unit = {
    val ms = epochMillis(args.argument)
    val kinesis = connection(args)
    val streams = args.flag("--stream").map(_.split(",").map(_.trim).filter(_.nonEmpty).toSeq)
    (streams, kinesis) match {
      case (Some(names), Some(c)) =>
        val positions = withApi(c, apiFor) { api =>
          names.flatMap(s =>
            api.listShards(s, ListShardsPage).map(d => ShardKey(s, d.shardId) -> ShardPosition.AtTimestamp(ms)))
        }
        out.println(KinesisOffsetJson.write(KinesisSourceOffset(positions.toMap)))
        err.println(s"Every shard of ${names.map(s => s"'$s'").mkString(", ")} from ${Instant.ofEpochMilli(ms)}: " +
          "give this JSON as initialPosition; a query reading more streams can merge such JSONs, one time per stream.")
      case (named, _) =>
        out.println(s"""{"at_timestamp": "${IsoTime.format(Instant.ofEpochMilli(ms))}", "format": "$IsoFormat"}""")
        err.println(s"Every shard of every stream the query reads from ${Instant.ofEpochMilli(ms)}: give this JSON " +
          "as initialPosition." + (if (named.isDefined) " For per-shard positions of the streams named, give " +
                                     "--region or --endpoint-url too."
                                   else ""))
    }
  }

  /** The at_timestamp JSON this tool prints: ISO 8601 in UTC, a pattern both java.time and SimpleDateFormat read. */
  private val IsoFormat = "yyyy-MM-dd'T'HH:mm:ss.SSSX"
  private val IsoTime = DateTimeFormatter.ofPattern(IsoFormat).withZone(ZoneOffset.UTC)
  private val ListShardsPage = 1000

  private def epochMillis(text: String): Long =
    if (text.nonEmpty && text.forall(_.isDigit)) Try(text.toLong).getOrElse(throw badTime(text))
    else
      try OffsetDateTime.parse(text).toInstant.toEpochMilli
      catch { case _: DateTimeParseException => throw badTime(text) }

  private def badTime(text: String) = new ToolError(s"TIME '$text' is neither an ISO 8601 time with its zone " +
      "(2026-11-26T20:00:00Z, 2026-11-26T21:00:00+01:00) nor epoch milliseconds", usage = true)

  /** The connection --region and --endpoint-url name, checked as the options region and endpoint are. */
  private def connection(args: ToolArguments): Option[ConnectionConfig] = {
    val named = Seq(KinesisOptions.Region.name -> args.flag("--region"),
      KinesisOptions.Endpoint.name -> args.flag("--endpoint-url")).collect { case (k, Some(v)) => k -> v }
    if (named.isEmpty) None
    else
      try Some(ConnectionOptions.parse(new OptionValues(named.toMap, Map.empty)))
      catch {
        case e: Exception with KinesisError =>
          throw new ToolError(s"--region/--endpoint-url: ${e.getMessage}", usage = true, cause = e)
      }
  }

  private def withApi[T](connection: ConnectionConfig, apiFor: ConnectionConfig => KinesisApi)(
      body: KinesisApi => T): T = {
    KinesisClients.acquire(connection)
    try body(apiFor(connection))
    finally KinesisClients.release(connection)
  }
}
