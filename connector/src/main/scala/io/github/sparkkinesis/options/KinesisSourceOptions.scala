// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.options

import java.util.Locale

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.client.ConnectionConfig
import io.github.sparkkinesis.errors.{KinesisError, KinesisErrors}
import io.github.sparkkinesis.kpl.OutOfRangePolicy
import io.github.sparkkinesis.offsets.{KinesisOffsetJson, KinesisSourceOffset}

/** Where a query with no checkpoint starts reading each shard. */
sealed trait InitialPosition extends Serializable
object InitialPosition {
  case object Latest extends InitialPosition
  case object TrimHorizon extends InitialPosition
  final case class AtTimestamp(epochMillis: Long) extends InitialPosition
  /** Per-shard positions; shards not named start at the trim horizon. */
  final case class Positions(offset: KinesisSourceOffset) extends InitialPosition
}

/** Where a batch read stops. */
sealed trait EndingPosition extends Serializable
object EndingPosition {
  case object Latest extends EndingPosition
  final case class Positions(offset: KinesisSourceOffset) extends EndingPosition
}

/** Prefetching into executor memory, and how batches are cut into tasks. */
final case class BufferSettings(
    shardsPerTask: Int,
    fetchBufferSize: Long,
    coalesceThresholdBlockSize: Long,
    coalesceBinSize: Long)

/**
 * The most a micro-batch reads (`maxRecordsPerTrigger`, `maxBytesPerTrigger`,
 * `maxRecordsPerShardPerTrigger`); None where the user set no bound.
 */
final case class TriggerLimits(
    maxRecords: Option[Long] = None,
    maxBytes: Option[Long] = None,
    maxRecordsPerShard: Option[Long] = None) {
  def isEmpty: Boolean = maxRecords.isEmpty && maxBytes.isEmpty && maxRecordsPerShard.isEmpty
}

/**
 * How a shard is read: GetRecords pacing, how long a trigger reads ahead, and what its rows
 * carry (`recordIds`: the `recordId` column of `includeRecordIds`).
 */
final case class FetchSettings(
    maxRecordsPerFetch: Int,
    maxFetchRateMBps: Double,
    minFetchPeriodMs: Long,
    maxFetchDurationMs: Long,
    failOnDataLoss: Boolean = true,
    recordIds: Boolean = false)

/** The source options, parsed and validated once, when the DataFrame is defined. */
final case class KinesisSourceOptions(
    streamNames: Seq[String],
    connection: ConnectionConfig,
    initialPosition: InitialPosition,
    /** Where a batch read starts: initialPosition when given, else the trim horizon. */
    batchStart: InitialPosition,
    endingPosition: EndingPosition,
    fetch: FetchSettings,
    buffer: BufferSettings,
    shardFetchIntervalMs: Long,
    maxShardsPerDescribe: Int,
    /** Enhanced fan-out (consumerMode efo); None when polling. */
    efo: Option[EfoSettings] = None,
    /** The options the user set, by lower-case name (of this connector), as they typed the name. */
    givenNames: Map[String, String] = Map.empty,
    outOfRangeUserRecords: OutOfRangePolicy = OutOfRangePolicy.Keep,
    /** The name of the stream's column (`stream` unless `streamColumnName` says otherwise). */
    streamColumnName: String = "stream",
    limits: TriggerLimits = TriggerLimits()) {

  /** Whether the user set `spec`, and the name they gave it. */
  def givenName(spec: KinesisOptions.OptionSpec): Option[String] = givenNames.get(spec.key)
}

object KinesisSourceOptions {
  import KinesisOptions.{EndingPosition => EndingPositionOption, InitialPosition => InitialPositionOption, _}

  // Kinesis stream names: 1-128 characters of letters, digits, underscore, dot and hyphen.
  // The Python builders read this pattern and the words below from _registry.json.
  private[sparkkinesis] val StreamNamePattern = "[a-zA-Z0-9_.-]{1,128}".r

  /** The words initialPosition takes besides JSON: where each starts. */
  val InitialPositionWords: Seq[(String, InitialPosition)] =
    Seq("latest" -> InitialPosition.Latest, "trim_horizon" -> InitialPosition.TrimHorizon,
      "earliest" -> InitialPosition.TrimHorizon)

  /** The word endingPosition takes besides offset JSON. */
  val EndingPositionWords: Seq[String] = Seq("latest")

  /**
   * Parses case-insensitive options, with the session's settings of the options that have a
   * Spark conf (`sessionConf`, by conf key) where the query does not give them; throws a
   * [[io.github.sparkkinesis.errors.KinesisConnectorException]].
   */
  def parse(options: Map[String, String], sessionConf: Map[String, String] = Map.empty): KinesisSourceOptions = {
    // As the user wrote them, so the error names what they typed.
    rejectMisplaced(options, Usage.Read)
    val values = new OptionValues(options, sessionConf)

    // Parse every option first, so a bad value is reported even for an unsupported option.
    val arns = StreamArns.parse(values)
    val streams = arns.map(_.map(_.name)).getOrElse(streamNames(values))
    val position = initialPosition(values)
    position match {
      case InitialPosition.Positions(offset) => checkPositionsStreams(values, InitialPositionOption, offset, streams)
      case _ =>
    }
    val fetch = FetchSettings(
      maxRecordsPerFetch = values.int(MaxRecordsPerFetch),
      maxFetchRateMBps = values.positiveDouble(MaxFetchRate),
      minFetchPeriodMs = values.durationMs(MinFetchPeriod),
      maxFetchDurationMs = values.durationMs(MaxFetchDuration),
      failOnDataLoss = values.boolean(FailOnDataLoss),
      recordIds = values.boolean(IncludeRecordIds))
    val shardFetchInterval = values.durationMs(ShardFetchInterval)
    val maxShardsPerDescribe = values.int(MaxShardsPerDescribe)
    val buffer = BufferSettings(
      shardsPerTask = values.int(ShardsPerTask),
      fetchBufferSize = values.bytes(FetchBufferSize),
      coalesceThresholdBlockSize = values.long(CoalesceThresholdBlockSize),
      coalesceBinSize = values.long(CoalesceBinSize))
    val ending = endingPosition(values)
    ending match {
      case EndingPosition.Positions(offset) => checkPositionsStreams(values, EndingPositionOption, offset, streams)
      case _ =>
    }
    val mode = values.choice(ConsumerMode)
    // Streams named by ARN stay keyed by name in offsets and checkpoints; only calls name the ARN.
    val connection = ConnectionOptions.parse(values, arns.map(_.head.region))
      .copy(streamArns = StreamArns.byName(arns), sdkDecoding = values.choice(RecordDecoder) == "sdk")
    val efoSettings =
      EfoSettings.parse(values, streams).copy(givenArns = ConsumerArns.parse(values, streams, connection))

    val efoOnly = sourceOptions.filterNot(_.modes.contains(Mode.Polling))
    if (mode == "polling") efoOnly.find(values.isSet).foreach { spec =>
      val named = values.name(spec)
      throw KinesisErrors.conflictingOptions(Seq(named, ConsumerMode.name),
        s"$named applies to enhanced fan-out only: set consumerMode to efo, or remove $named")
    }
    val batchStart = if (values.isSet(InitialPositionOption)) position else InitialPosition.TrimHorizon
    KinesisSourceOptions(streams, connection, position, batchStart, ending, fetch, buffer,
      shardFetchInterval, maxShardsPerDescribe, if (mode == "efo") Some(efoSettings) else None,
      options.keys.map(k => KinesisOptions.resolve(k).fold(k.toLowerCase(Locale.ROOT))(_._1.key) -> k).toMap,
      OutOfRangePolicy.named(values.choice(OutOfRangeUserRecords)).get,
      streamColumnName(values),
      TriggerLimits(
        values.get(MaxRecordsPerTrigger).map(_ => values.long(MaxRecordsPerTrigger)),
        values.get(MaxBytesPerTrigger).map(_ => values.bytes(MaxBytesPerTrigger)),
        values.get(MaxRecordsPerShardPerTrigger).map(_ => values.long(MaxRecordsPerShardPerTrigger))))
  }

  private val ColumnNamePattern = "[A-Za-z_][A-Za-z0-9_]{0,127}".r

  /** The source's columns but the stream's (KinesisSchema; a test keeps the two alike). */
  private[sparkkinesis] val OtherColumns =
    Seq("partitionKey", "data", "shardId", "sequenceNumber", "approximateArrivalTimestamp", "subSequenceNumber",
      "recordId")

  /** A plain SQL name (no quoting needed) but another column's: the stream's column may not shadow one. */
  private def streamColumnName(values: OptionValues): String = {
    val name = values.get(StreamColumnName).get.trim
    if (!ColumnNamePattern.pattern.matcher(name).matches() || OtherColumns.exists(_.equalsIgnoreCase(name))) {
      throw values.invalid(StreamColumnName, name,
        "a column name of letters, digits and '_' (not starting with a digit) other than those of the other " +
          s"columns (${OtherColumns.mkString(", ")}), such as streamName")
    }
    name
  }

  private def endingPosition(values: OptionValues): EndingPosition = {
    val text = values.get(EndingPositionOption).get.trim
    if (EndingPositionWords.exists(_.equalsIgnoreCase(text))) EndingPosition.Latest
    else if (text.startsWith("{")) EndingPosition.Positions(offsetJson(values, EndingPositionOption, text))
    else throw values.invalid(EndingPositionOption, text,
      s"${EndingPositionWords.mkString(", ")}, or per-shard positions as offset JSON such as " +
        KinesisOffsetJson.Example)
  }

  /**
   * Positions may name other streams too (a line of a multi-stream query's checkpoint works as
   * is), but positions naming none of the streams read are a mistake: a misspelt stream would
   * silently start everything at the trim horizon, or end a batch read before its first record.
   */
  private def checkPositionsStreams(values: OptionValues, spec: OptionSpec, offset: KinesisSourceOffset,
      streams: Seq[String]): Unit = {
    val named = offset.shards.keySet.map(_.stream)
    if (named.nonEmpty && !named.exists(streams.contains)) {
      throw values.invalid(spec, values.get(spec).get.trim,
        s"per-shard positions of the streams read " +
          s"(streamName ${streams.map(s => s"'$s'").mkString(", ")}); these name only " +
          named.toSeq.sorted.map(s => s"'$s'").mkString(", "))
    }
  }

  /** Per-shard positions, in the offset JSON of the checkpoint. */
  private def offsetJson(values: OptionValues, spec: OptionSpec, text: String): KinesisSourceOffset =
    try KinesisOffsetJson.read(text)
    catch {
      case e: KinesisError =>
        // The offset's own message speaks of a checkpoint; here it is an option's value.
        val reason = e.getMessageParameters.asScala.get("reason")
          .getOrElse(s"version ${e.getMessageParameters.get("found")} is not one this connector " +
            s"reads (up to ${KinesisOffsetJson.Version})")
        throw values.invalid(spec, text,
          s"per-shard positions as offset JSON such as " +
            s"${KinesisOffsetJson.Example}; here $reason", e)
    }

  private def streamNames(values: OptionValues): Seq[String] = {
    val text =
      values.required(StreamName, "give one stream name or a comma-separated list (or their ARNs in streamARN)")
    val names = text.split(",", -1).map(_.trim).toSeq
    names.find(n => !StreamNamePattern.pattern.matcher(n).matches()).foreach { bad =>
      throw values.invalid(StreamName, text,
        s"stream names of 1 to 128 letters, digits, '_', '.' " +
          s"or '-', separated by commas ('$bad' is not one)")
    }
    if (names.distinct.size != names.size) {
      throw values.invalid(StreamName, text, "each stream named once")
    }
    names
  }

  private def initialPosition(values: OptionValues): InitialPosition = {
    val text = values.get(InitialPositionOption).get.trim
    val allowed = s"${InitialPositionWords.map(_._1).mkString(", ")}, or at_timestamp as JSON such as " +
      "{\"at_timestamp\": \"06/25/2020 10:23:45 PDT\"} (optionally with a \"format\" field)"
    val word = InitialPositionWords.collectFirst { case (w, position) if w.equalsIgnoreCase(text) => position }
    word.getOrElse(text.toLowerCase(Locale.ROOT) match {
      case json if json.startsWith("{") && json.contains("\"version\"") =>
        InitialPosition.Positions(offsetJson(values, InitialPositionOption, text))
      case json if json.startsWith("{") =>
        OptionValues.parseAtTimestamp(text) match {
          case Right(ms) => InitialPosition.AtTimestamp(ms)
          case Left(reason) => throw values.invalid(InitialPositionOption, text, s"$allowed; here $reason")
        }
      case "at_timestamp" =>
        throw values.invalid(InitialPositionOption, text, s"$allowed; at_timestamp needs the JSON form")
      case _ => throw values.invalid(InitialPositionOption, text, allowed)
    })
  }
}
