// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.options

import java.util.Locale

import io.github.sparkkinesis.errors.KinesisErrors
import io.github.sparkkinesis.kpl.OutOfRangePolicy
import io.github.sparkkinesis.options.OptionKind._

/**
 * The registry of every option the connector knows: its name (as the Databricks Runtime docs
 * spell it), its default, what it does, and whether it applies to reading, writing or both.
 * Parsing, validation, the option tables of docs/options.md and the Python builders all
 * follow this list.
 */
object KinesisOptions extends CredentialAndProxySpecs with SinkSpecs {

  /** Where an option applies: reading (`spark.readStream`), writing (`df.write(Stream)`), or both. */
  sealed abstract class Usage(val reads: Boolean, val writes: Boolean, val described: String)
  object Usage {
    case object Read extends Usage(true, false, "reading from Kinesis (spark.readStream)")
    case object Write extends Usage(false, true, "writing to Kinesis (df.write or df.writeStream)")
    case object ReadAndWrite extends Usage(true, true, "reading and writing")
  }

  /**
   * Everything about one option. Adding one is one line: `OptionSpec("name", Some("default"),
   * "What it does.", kind = IntRange(1, 100))`, plus `usage`, `modes` or `secret` when they
   * differ from a read option of every mode; then list it in `all`.
   *
   * @param shownDefault the default as the options page says it, where it is not a plain value
   * @param writeDescription what the option does when writing, where it differs
   * @param emptyMeansNotGiven an empty value counts as not given (for options filled from an
   *                           unset environment variable); other options refuse an empty value
   * @param sessionConf a Spark conf that sets the option for every query of a session (or a
   *                    cluster) that does not give it
   */
  final case class OptionSpec(
      name: String,
      default: Option[String],
      description: String,
      secret: Boolean = false,
      usage: Usage = Usage.Read,
      kind: OptionKind = Text,
      modes: Seq[Mode] = Mode.all,
      shownDefault: Option[String] = None,
      writeDescription: Option[String] = None,
      emptyMeansNotGiven: Boolean = false,
      sessionConf: Option[String] = None) {
    def key: String = name.toLowerCase(Locale.ROOT)
  }

  private val both = Usage.ReadAndWrite

  /**
   * The longest minFetchPeriod, maxFetchDuration and shardFetchInterval: an hour. Longer would
   * leave a trigger waiting for hours on an idle stream, and waits past Long.MaxValue overflow.
   */
  private val Hour: Long = 3600L * 1000

  val StreamName = OptionSpec("streamName", None, "Comma-separated list of stream names to read.",
    usage = both, kind = NameList, shownDefault = Some("(required, or streamARN)"),
    writeDescription = Some("The one stream to write to; without it each row's `stream` column names its stream."))
  val StreamARN = OptionSpec("streamARN", None,
    "The streams to read by ARN instead of by name, one " +
      "or a comma-separated list (`arn:aws:kinesis:us-east-1:123456789012:stream/orders`); the region " +
      "comes from the ARNs, which must share one; every call names the stream by its ARN, so another account's " +
      "stream is the one read: through `roleArn` (a role of that account) or through the stream's resource " +
      "policy with your own credentials.", kind = NameList)
  val Region = OptionSpec("region", None,
    "AWS region of the streams; must be a region that exists " +
      "(see [Authentication](authentication.md#region-and-endpoint)).", usage = both, emptyMeansNotGiven = true,
    shownDefault = Some("region the AWS SDK resolves locally"))
  val Endpoint = OptionSpec("endpoint", None,
    "Kinesis endpoint URL (http:// or https://): VPC or FIPS " +
      "endpoints, local Kinesis.", usage = both, emptyMeansNotGiven = true,
    shownDefault = Some("the region's endpoint"))
  val InitialPosition = OptionSpec("initialPosition", Some("latest"),
    "Where a new query starts: `latest`, `trim_horizon`, `earliest` (alias of trim_horizon), at_timestamp " +
      "as JSON `{\"at_timestamp\": \"06/25/2020 10:23:45 PDT\"}` with an optional `\"format\"` (a " +
      "`java.text.SimpleDateFormat` pattern; default `MM/dd/yyyy HH:mm:ss z`), or per-shard positions as " +
      "offset JSON, e.g. `{\"version\":1,\"shards\":{\"s\":{\"shardId-000000000000\":{\"type\":\"at\"," +
      "\"seq\":\"4959...\"}}}}` (`at` includes that record, `after` starts after it; shards not named start " +
      "at trim_horizon, but those a named shard descends from count as read; a line of a checkpoint's " +
      "`offsets/N` file works as is, and `python -m pyspark_kinesis offsets import` writes one from a qubole " +
      "or awslabs checkpoint).",
    kind = Position, shownDefault = Some("latest (streams); trim_horizon (batch reads)"))
  val EndingPosition = OptionSpec("endingPosition", Some("latest"),
    "Where to stop: `latest` (the tip when the read is planned) or per-shard positions as offset JSON " +
      "(`after` = last record to read).", kind = Position, modes = Mode.batchOnly)
  val MaxRecordsPerFetch = OptionSpec("maxRecordsPerFetch", Some("10000"),
    "Records asked for per GetRecords call; also the most user records (KPL aggregates hold many) a " +
      "prefetch fetch hands out, in both modes.", kind = IntRange(1, 10000))
  val MaxFetchRate = OptionSpec("maxFetchRate", Some("1.0"),
    "Read rate limit per shard in MiB/s (Kinesis allows 2 MiB/s per shard, which 2.0 reads).",
    kind = PositiveDecimal(2.0),
    modes = Mode.pollingOnly)
  val MinFetchPeriod = OptionSpec("minFetchPeriod", Some("400ms"),
    "Shortest wait between GetRecords calls on a shard (Kinesis allows 5 calls/s).", kind = Duration(200, Hour))
  val MaxFetchDuration = OptionSpec("maxFetchDuration", Some("10s"),
    "How long a prefetch task reads before its records are made available (lower it, e.g. 200ms, " +
      "for latency).", kind = Duration(1, Hour), modes = Mode.notRealTime)
  val FetchBufferSize = OptionSpec("fetchBufferSize", Some("20gb"),
    "How much prefetched data may wait for the query; prefetching pauses above it (a stopping " +
      "condition, not a hard bound).", kind = Size(), modes = Mode.notRealTime)
  val ShardsPerTask = OptionSpec("shardsPerTask", Some("5"),
    "Shards one prefetching task reads, at least. Give the cluster at least 2 × shards / shardsPerTask cores so " +
      "prefetching and the query run side by side; with fewer, tasks take more shards each, so that prefetching " +
      "needs at most half of the task slots.", kind = IntRange(1, 10000), modes = Mode.notRealTime)
  val ShardFetchInterval = OptionSpec("shardFetchInterval", Some("1s"),
    "How often shards are listed, to follow resharding.", kind = Duration(1, Hour))
  val AwsAccessKey = OptionSpec("awsAccessKey", None,
    "AWS access key id; with awsSecretKey. Takes precedence over the default chain; with roleArn, the " +
      "keys the role is assumed with.", secret = true, usage = both, emptyMeansNotGiven = true)
  val AwsSecretKey = OptionSpec("awsSecretKey", None,
    "AWS secret access key matching awsAccessKey.", secret = true, usage = both, emptyMeansNotGiven = true)
  val AwsSessionToken = OptionSpec("awsSessionToken", None,
    "Session token, for temporary keys.", secret = true, usage = both, emptyMeansNotGiven = true)
  val RoleArn = OptionSpec("roleArn", None,
    "IAM role to assume through STS, with the keys above if given, else with the default chain; " +
      "renewed before it expires.", usage = both, emptyMeansNotGiven = true)
  val RoleExternalId = OptionSpec("roleExternalId", None,
    "External id for roleArn, if the role's trust policy asks for one.", usage = both, emptyMeansNotGiven = true)
  val RoleSessionName = OptionSpec("roleSessionName", Some(ConnectionOptions.DefaultRoleSessionName),
    "Session name for roleArn (shows in CloudTrail).", usage = both, emptyMeansNotGiven = true)
  val StsEndpoint = OptionSpec("stsEndpoint", None,
    "STS endpoint URL for roleArn (VPC, FIPS, local STS).", usage = both, emptyMeansNotGiven = true,
    shownDefault = Some("the region's STS endpoint"))
  val CoalesceThresholdBlockSize = OptionSpec("coalesceThresholdBlockSize", Some("10000000"),
    "When prefetched blocks average less than this many bytes, a batch packs several shards into one task.",
    kind = LongAtLeast(1), modes = Mode.notRealTime)
  val CoalesceBinSize = OptionSpec("coalesceBinSize", Some("128000000"),
    "The bytes a packed task aims for.", kind = LongAtLeast(1), modes = Mode.notRealTime)
  val MaxRecordsPerTrigger = OptionSpec("maxRecordsPerTrigger", None,
    "The most records (KPL user records) a micro-batch reads, as Kafka's maxOffsetsPerTrigger: shared fairly " +
      "among the shards that have records, parents before children. Honoured by Trigger.AvailableNow (several " +
      "batches up to the end fixed at its start); not in real-time mode.",
    kind = LongAtLeast(1), modes = Mode.notRealTime)
  val MaxBytesPerTrigger = OptionSpec("maxBytesPerTrigger", None,
    "The most record bytes (data plus partition keys) a micro-batch reads, shared as maxRecordsPerTrigger is. " +
      "A batch holds at least one record, however large.",
    kind = Size(), modes = Mode.notRealTime)
  val MaxRecordsPerShardPerTrigger = OptionSpec("maxRecordsPerShardPerTrigger", None,
    "The most records a micro-batch reads from any one shard.", kind = LongAtLeast(1), modes = Mode.notRealTime)
  val ConsumerMode = OptionSpec("consumerMode", Some("polling"),
    "`polling` (GetRecords, the shard's 2 MB/s shared with other readers) or `efo` (enhanced fan-out: a " +
      "registered consumer with its own 2 MB/s per shard).", kind = Choice(Seq("polling", "efo")))
  val RequireConsumerDeregistration = OptionSpec("requireConsumerDeregistration", Some("false"),
    "Deregister the EFO consumer on query stop.", kind = Bool, modes = Mode.efoOnly)
  val FailOnDataLoss = OptionSpec("failOnDataLoss", Some("true"),
    "Fail the query (`KINESIS_DATA_LOSS`) when records it still had to read were deleted by retention " +
      "first; `false` logs it, counts it in `dataLossEvents` and goes on from the oldest record left. See " +
      "[KPL and data loss](reading.md#kpl-aggregated-records).", kind = Bool)
  val OutOfRangeUserRecords = OptionSpec("outOfRangeUserRecords", Some("keep"),
    "What becomes of user records of a KPL aggregate whose hash key lies outside the shard holding it. " +
      "`keep`: every one is read (the AWS aggregation libraries mix keys in one aggregate on purpose), except " +
      "those its producer marked as written again (this connector's sink after a split). `dropAfterSplit`: " +
      "also drops them where the shard was split from a parent whose range holds the whole aggregate (the " +
      "KPL writes those again; loses records of mixed-key producers on split streams). `drop`: the KCL's " +
      "filter, drops every one (loses records of mixed-key producers). Counted in `outOfRangeRecords` and " +
      "`outOfRangeRecordsDropped`. See [KPL aggregated records](reading.md#kpl-aggregated-records).",
    kind = Choice(OutOfRangePolicy.all.map(_.name)))
  val RecordDecoder = OptionSpec("recordDecoder", Some("connector"),
    "Who reads GetRecords answers and SubscribeToShard events: `connector`, the connector's own decoders " +
      "(several times less CPU per record), or `sdk`, the AWS SDK's own unmarshalling, with the same rows " +
      "and offsets. Try `sdk` first when records are suspected of being read wrong. Also set for every " +
      "query of a session by the Spark conf `spark.sparkkinesis.recordDecoder`.",
    kind = Choice(Seq("connector", "sdk")), sessionConf = Some("spark.sparkkinesis.recordDecoder"))
  val StreamColumnName = OptionSpec("streamColumnName", Some("stream"),
    "The name of the column that holds each record's stream: `streamName` gives the column the name " +
      "qubole's and awslabs' connectors give it, so a query moved from them reads on unchanged.",
    kind = Text)
  val IncludeRecordIds = OptionSpec("includeRecordIds", Some("false"),
    "Adds a last column `recordId` (string): the id a writer with `recordIds` gave the record, the same " +
      "for every copy at-least-once writing made of it, null for records without one. Drop the repeats " +
      "with `dropDuplicatesWithinWatermark([\"recordId\"])`. See " +
      "[Exactly once after deduplication](writing.md#exactly-once-after-deduplication).", kind = Bool)
  val MaxShardsPerDescribe = OptionSpec("maxShardsPerDescribe", Some("100"),
    "Shards per ListShards page.", kind = IntRange(1, 10000))
  val ConsumerName = OptionSpec("consumerName", None,
    "EFO consumer name, or a comma-separated list, one per stream.", kind = NameList, modes = Mode.efoOnly,
    shownDefault = Some("the query id"))
  val ConsumerNamePrefix = OptionSpec("consumerNamePrefix", Some("sparkkinesis_"),
    "Prefix of EFO consumer names (`databricks_` to reuse Databricks consumers).", modes = Mode.efoOnly)
  val ConsumerARN = OptionSpec("consumerARN", None,
    "The ARN of an enhanced fan-out consumer registered elsewhere, or a comma-separated list, one per stream " +
      "(`arn:aws:kinesis:us-east-1:123456789012:stream/orders/consumer/reader:1700000000`): read with it as " +
      "is, never registered nor deregistered; checked to be ACTIVE and to belong to the stream read. Instead " +
      "of consumerName, consumerNamePrefix and requireConsumerDeregistration.", kind = NameList,
    modes = Mode.efoOnly)
  val ConsumerRefreshInterval = OptionSpec("consumerRefreshInterval", Some("300s"),
    "How often the EFO consumer registration is checked.", kind = Duration(1000, Hour), modes = Mode.efoOnly)

  val all: Seq[OptionSpec] = Seq(
    StreamName, StreamARN, Region, Endpoint, InitialPosition, EndingPosition, MaxRecordsPerFetch, MaxFetchRate,
    MinFetchPeriod, MaxFetchDuration, FetchBufferSize, ShardsPerTask, ShardFetchInterval,
    AwsAccessKey, AwsSecretKey, AwsSessionToken, RoleArn, RoleExternalId, RoleSessionName,
    StsEndpoint, Profile, AwsCredentialsProvider, AwsCredentialsProviderSecret, ProxyHost, ProxyPort, ProxyUsername,
    ProxyPassword, NonProxyHosts, CoalesceThresholdBlockSize, CoalesceBinSize, MaxRecordsPerTrigger, MaxBytesPerTrigger,
    MaxRecordsPerShardPerTrigger, ConsumerMode,
    RequireConsumerDeregistration, FailOnDataLoss, OutOfRangeUserRecords, RecordDecoder, StreamColumnName,
    IncludeRecordIds, MaxShardsPerDescribe, ConsumerName,
    ConsumerNamePrefix, ConsumerARN,
    ConsumerRefreshInterval,
    MaxRecordsPerPut, MaxBytesPerPut, MaxInFlightPuts, MaxPutRetries, PutRetryBackoff,
    MaxPutRetryBackoff, MaxPutLinger, Aggregation, OrderPerKey, RecordIds)

  /**
   * Source options of streams that cannot apply in real-time mode (`trigger(realTime=...)`),
   * where one task per shard reads directly with no prefetching: a query that sets one is
   * refused when it starts rather than run with the option silently ignored.
   */
  def notInRealTime: Seq[OptionSpec] =
    sourceOptions.filter(o => o.modes.contains(Mode.MicroBatch) && !o.modes.contains(Mode.RealTime))

  /** The options of the source (read-only and shared ones). */
  def sourceOptions: Seq[OptionSpec] = all.filter(_.usage.reads)

  /** The options of the sink (write-only and shared ones). */
  def sinkOptions: Seq[OptionSpec] = all.filter(_.usage.writes)

  private val byKey: Map[String, OptionSpec] = all.map(o => o.key -> o).toMap

  def find(name: String): Option[OptionSpec] = byKey.get(name.toLowerCase(Locale.ROOT))

  /** Names of the source's options, for the Python builders' drift test (called through py4j). */
  def names: Array[String] = sourceOptions.map(_.name).toArray

  /** Names of the sink's options, for the Python builders' drift test (called through py4j). */
  def sinkNames: Array[String] = sinkOptions.map(_.name).toArray

  def isSecret(name: String): Boolean = resolve(name).exists(_._1.secret)

  /** The Spark confs that set options for a whole session. */
  def sessionConfs: Seq[String] = all.flatMap(_.sessionConf)

  /**
   * The known option closest to a misspelt one, if any is close enough to be a likely typo.
   * Options of the given use come first: a typo in a write is meant as a write option.
   */
  def suggest(name: String, usage: Usage = Usage.ReadAndWrite): Option[String] = {
    val key = name.toLowerCase(Locale.ROOT)
    val preferred = all.filter(o => (usage.reads && o.usage.reads) || (usage.writes && o.usage.writes))
    val found = Seq(preferred, all).iterator.flatMap { candidates =>
      val (best, distance) = candidates.map(o => o -> editDistance(key, o.key)).minBy(_._2)
      if (likelyTypo(key, distance)) Some(best.name) else None
    }
    if (found.hasNext) Some(found.next()) else None
  }

  /**
   * Rejects option names that are unknown, or known but not used where they were given (a
   * sink option in a read, a source option in a write). `passThrough` are names Spark itself
   * reads from the same map (checkpointLocation on a stream writer). Names are reported as the
   * user wrote them; values are never shown, so a misspelt secret option stays secret.
   */
  private[sparkkinesis] def rejectMisplaced(
      options: Map[String, String],
      usage: Usage,
      passThrough: Set[String] = Set.empty): Unit = {
    val pass = passThrough.map(_.toLowerCase(Locale.ROOT))
    val typed = options.keys.filterNot(k => pass.contains(k.toLowerCase(Locale.ROOT))).toSeq
    val resolved = typed.map { k =>
      resolve(k) match {
        case None =>
          OptionAliases.findRetired(k) match {
            case Some(r) => throw KinesisErrors.optionWithoutCounterpart(k, r.dialect.described, r.advice)
            case None => throw KinesisErrors.unknownOption(k, suggest(k, usage))
          }
        case Some((spec, _)) if (usage.reads && !spec.usage.reads) || (usage.writes && !spec.usage.writes) =>
          throw KinesisErrors.optionNotApplicable(k, spec.usage.described, usage.described)
        case Some((spec, alias)) =>
          alias.foreach(AliasLog.used(_, spec.name))
          (spec, k, alias.fold(options(k))(_.translate(options(k))).trim)
      }
    }
    // One option under several names is fine when they agree (awslabs documents both
    // kinesis.region and kinesis.kinesisRegion, and users set both); values are never shown.
    resolved.groupBy(_._1).collectFirst {
      case (spec, twice) if twice.map(_._3).distinct.size > 1 =>
        throw KinesisErrors.conflictingOptions(twice.map(_._2).sorted,
          s"they are names of one option, ${spec.name} (other connectors' names are read as aliases), with " +
            "different values: give it once")
    }
  }

  /** The option `name` stands for, by its own name or another connector's, and the alias when it was one. */
  def resolve(name: String): Option[(OptionSpec, Option[OptionAlias])] =
    find(name).map(_ -> None).orElse(OptionAliases.find(name).map { case (spec, alias) => spec -> Some(alias) })

  /** The option of `among` closest to a misspelt one, if any is close enough. */
  def suggest(name: String, among: Seq[OptionSpec]): Option[String] = {
    val key = name.toLowerCase(Locale.ROOT)
    val (best, distance) = among.map(o => o -> editDistance(key, o.key)).minBy(_._2)
    if (likelyTypo(key, distance)) Some(best.name) else None
  }

  /** A name this many edits from a known one is a likely typo of it: 2 edits, or one per 4 characters. */
  val SuggestWithinEdits = 2
  val SuggestCharactersPerEdit = 4

  private def likelyTypo(typed: String, distance: Int): Boolean =
    distance <= math.max(SuggestWithinEdits, typed.length / SuggestCharactersPerEdit)

  private[options] def editDistance(a: String, b: String): Int = {
    val d = Array.tabulate(a.length + 1, b.length + 1)((i, j) => if (i == 0) j else if (j == 0) i else 0)
    for (i <- 1 to a.length; j <- 1 to b.length) {
      val cost = if (a(i - 1) == b(j - 1)) 0 else 1
      d(i)(j) = math.min(math.min(d(i - 1)(j) + 1, d(i)(j - 1) + 1), d(i - 1)(j - 1) + cost)
    }
    d(a.length)(b.length)
  }
}
