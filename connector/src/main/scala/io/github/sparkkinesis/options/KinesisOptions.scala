package io.github.sparkkinesis.options

import java.util.Locale

import io.github.sparkkinesis.errors.KinesisErrors

/**
 * The registry of every option the connector knows: its name (as the Databricks Runtime docs
 * spell it), its default, what it does, whether this version implements it, and whether it
 * applies to reading, writing or both. Parsing, validation, the README tables and the Python
 * builders all follow this list.
 */
object KinesisOptions {

  sealed trait Support
  case object Supported extends Support
  final case class NotSupportedYet(detail: String) extends Support

  /** Where an option applies: reading (`spark.readStream`), writing (`df.write(Stream)`), or both. */
  sealed abstract class Usage(val reads: Boolean, val writes: Boolean, val described: String)
  object Usage {
    case object Read extends Usage(true, false, "reading from Kinesis (spark.readStream)")
    case object Write extends Usage(false, true, "writing to Kinesis (df.write or df.writeStream)")
    case object ReadAndWrite extends Usage(true, true, "reading and writing")
  }

  final case class OptionSpec(
      name: String,
      default: Option[String],
      description: String,
      support: Support = Supported,
      secret: Boolean = false,
      usage: Usage = Usage.Read) {
    def key: String = name.toLowerCase(Locale.ROOT)
  }


  private val both = Usage.ReadAndWrite

  val StreamName = OptionSpec("streamName", None, "Comma-separated list of stream names to read; " +
    "when writing, the one stream to write to (else each row's 'stream' column).", usage = both)
  val Region = OptionSpec("region", None,
    "AWS region of the streams. Default: the region the AWS SDK resolves locally.", usage = both)
  val Endpoint = OptionSpec("endpoint", None,
    "Kinesis endpoint URL (http:// or https://). Default: the region's endpoint.", usage = both)
  val InitialPosition = OptionSpec("initialPosition", Some("latest"),
    "Where a new query starts: latest, trim_horizon, earliest (alias of trim_horizon), " +
      "at_timestamp as JSON {\"at_timestamp\": \"06/25/2020 10:23:45 PDT\"} with an optional " +
      "\"format\" field, or per-shard positions as offset JSON (as in the checkpoint).")
  val EndingPosition = OptionSpec("endingPosition", Some("latest"),
    "Batch reads only: where to stop, latest (the tip when the read starts) or per-shard " +
      "positions as offset JSON.")
  val MaxRecordsPerFetch = OptionSpec("maxRecordsPerFetch", Some("10000"),
    "Records asked for per GetRecords call (1 to 10000).")
  val MaxFetchRate = OptionSpec("maxFetchRate", Some("1.0"),
    "Read rate limit per shard in MB/s (above 0, at most 2.0).")
  val MinFetchPeriod = OptionSpec("minFetchPeriod", Some("400ms"),
    "Shortest wait between GetRecords calls on a shard (200ms to 1h).")
  val MaxFetchDuration = OptionSpec("maxFetchDuration", Some("10s"),
    "How long a prefetch task reads before it makes its records available to the query (at most 1h).")
  val FetchBufferSize = OptionSpec("fetchBufferSize", Some("20gb"),
    "How much prefetched data to buffer for the next trigger.")
  val ShardsPerTask = OptionSpec("shardsPerTask", Some("5"),
    "How many shards one prefetching task reads.")
  val ShardFetchInterval = OptionSpec("shardFetchInterval", Some("1s"),
    "How often to list the shards of the streams, to follow resharding (at most 1h).")
  val AwsAccessKey = OptionSpec("awsAccessKey", None,
    "AWS access key id; give it together with awsSecretKey. Takes precedence over the default " +
      "credential chain; with roleArn, the keys the role is assumed with.", secret = true, usage = both)
  val AwsSecretKey = OptionSpec("awsSecretKey", None,
    "AWS secret access key matching awsAccessKey.", secret = true, usage = both)
  val AwsSessionToken = OptionSpec("awsSessionToken", None,
    "Session token for temporary keys given in awsAccessKey/awsSecretKey.", secret = true, usage = both)
  val RoleArn = OptionSpec("roleArn", None,
    "ARN of an IAM role to assume through STS, with awsAccessKey/awsSecretKey if given, else " +
      "with the default credential chain; its credentials are renewed before they expire.", usage = both)
  val RoleExternalId = OptionSpec("roleExternalId", None,
    "External id used when assuming roleArn (if the role's trust policy asks for one).", usage = both)
  val RoleSessionName = OptionSpec("roleSessionName", Some(ConnectionOptions.DefaultRoleSessionName),
    "Session name used when assuming roleArn; shows in CloudTrail.", usage = both)
  val StsEndpoint = OptionSpec("stsEndpoint", None,
    "STS endpoint URL used to assume roleArn (a VPC, FIPS or local STS). Default: the " +
      "regional STS endpoint of region.", usage = both)
  val CoalesceThresholdBlockSize = OptionSpec("coalesceThresholdBlockSize", Some("10000000"),
    "Average prefetched block size below which blocks are coalesced.")
  val CoalesceBinSize = OptionSpec("coalesceBinSize", Some("128000000"),
    "Approximate block size after coalescing.")
  val ConsumerMode = OptionSpec("consumerMode", Some("polling"),
    "polling (GetRecords, shared 2 MB/s per shard) or efo (enhanced fan-out: a registered consumer with its own 2 MB/s per shard).")
  val RequireConsumerDeregistration = OptionSpec("requireConsumerDeregistration", Some("false"),
    "Deregister the EFO consumer when the query stops.")
  val MaxShardsPerDescribe = OptionSpec("maxShardsPerDescribe", Some("100"),
    "Shards listed per ListShards call (1 to 10000).")
  val ConsumerName = OptionSpec("consumerName", None,
    "EFO consumer name, or a comma-separated list, one per stream.")
  val ConsumerNamePrefix = OptionSpec("consumerNamePrefix", Some("sparkkinesis_"),
    "Prefix of EFO consumer names.")
  val ConsumerRefreshInterval = OptionSpec("consumerRefreshInterval", Some("300s"),
    "How often the EFO consumer registration is checked (at most 3600s).")

  // ---- the sink (writing); the connection options above apply as well ----

  private val write = Usage.Write

  val MaxRecordsPerPut = OptionSpec("maxRecordsPerPut", Some("500"),
    "Most records sent in one PutRecords call (1 to 500, the Kinesis limit).", usage = write)
  val MaxBytesPerPut = OptionSpec("maxBytesPerPut", Some("5mb"),
    "Most bytes (data plus partition keys) sent in one PutRecords call (above 0, at most 5mb, " +
      "the Kinesis limit); a larger single record goes alone.", usage = write)
  val MaxInFlightPuts = OptionSpec("maxInFlightPuts", Some("4"),
    "PutRecords calls one Spark task keeps in flight at once (1 to 64).", usage = write)
  val MaxPutRetries = OptionSpec("maxPutRetries", Some("10"),
    "How often a record Kinesis refused (throttling included) is sent again before the task " +
      "fails (0 to 1000).", usage = write)
  val PutRetryBackoff = OptionSpec("putRetryBackoff", Some("100ms"),
    "Wait before the first retry; it doubles with each retry, with random jitter.", usage = write)
  val MaxPutRetryBackoff = OptionSpec("maxPutRetryBackoff", Some("5s"),
    "Longest wait between two retries (at least putRetryBackoff).", usage = write)

  val MaxPutLinger = OptionSpec("maxPutLinger", Some("50ms"),
    "Longest a record waits for its PutRecords call to fill before it is sent anyway (1ms to 10m): " +
      "keeps latency low when rows come slowly, as in real-time mode.", usage = write)

  val all: Seq[OptionSpec] = Seq(
    StreamName, Region, Endpoint, InitialPosition, EndingPosition, MaxRecordsPerFetch, MaxFetchRate,
    MinFetchPeriod, MaxFetchDuration, FetchBufferSize, ShardsPerTask, ShardFetchInterval,
    AwsAccessKey, AwsSecretKey, AwsSessionToken, RoleArn, RoleExternalId, RoleSessionName,
    StsEndpoint, CoalesceThresholdBlockSize, CoalesceBinSize, ConsumerMode,
    RequireConsumerDeregistration, MaxShardsPerDescribe, ConsumerName, ConsumerNamePrefix,
    ConsumerRefreshInterval,
    MaxRecordsPerPut, MaxBytesPerPut, MaxInFlightPuts, MaxPutRetries, PutRetryBackoff,
    MaxPutRetryBackoff, MaxPutLinger)

  /**
   * Source options that cannot apply in real-time mode (`trigger(realTime=...)`), where one
   * task per shard reads directly with no prefetching: a query that sets one is refused when
   * it starts, with the reason, rather than run with the option silently ignored.
   */
  val NotInRealTime: Map[OptionSpec, String] = Map(
    FetchBufferSize -> "nothing is prefetched; each shard's task returns records as they arrive",
    ShardsPerTask -> "every open shard is read by a task of its own",
    MaxFetchDuration -> "there are no prefetch rounds; a task reads its shard for the whole batch",
    CoalesceThresholdBlockSize -> "there are no prefetched blocks to coalesce",
    CoalesceBinSize -> "there are no prefetched blocks to coalesce")

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

  def isSecret(name: String): Boolean = find(name).exists(_.secret)

  /**
   * The known option closest to a misspelt one, if any is close enough to be a likely typo.
   * Options of the given use come first: a typo in a write is meant as a write option.
   */
  def suggest(name: String, usage: Usage = Usage.ReadAndWrite): Option[String] = {
    val key = name.toLowerCase(Locale.ROOT)
    val preferred = all.filter(o => (usage.reads && o.usage.reads) || (usage.writes && o.usage.writes))
    Seq(preferred, all).iterator.flatMap { candidates =>
      val (best, distance) = candidates.map(o => o -> editDistance(key, o.key)).minBy(_._2)
      if (distance <= math.max(2, key.length / 4)) Some(best.name) else None
    }.nextOption()
  }

  /**
   * Rejects option names that are unknown, or known but not used where they were given (a
   * sink option in a read, a source option in a write). `passThrough` are names Spark itself
   * reads from the same map (checkpointLocation on a stream writer). Names are reported as the
   * user wrote them; values are never shown, so a misspelt secret option stays secret.
   */
  private[sparkkinesis] def rejectMisplaced(
      names: Iterable[String],
      usage: Usage,
      passThrough: Set[String] = Set.empty): Unit = {
    val pass = passThrough.map(_.toLowerCase(Locale.ROOT))
    names.filterNot(k => pass.contains(k.toLowerCase(Locale.ROOT))).foreach { k =>
      find(k) match {
        case None => throw KinesisErrors.unknownOption(k, suggest(k, usage))
        case Some(spec) if (usage.reads && !spec.usage.reads) || (usage.writes && !spec.usage.writes) =>
          throw KinesisErrors.optionNotApplicable(k, spec.usage.described, usage.described)
        case _ =>
      }
    }
  }

  /** The option of `among` closest to a misspelt one, if any is close enough. */
  def suggest(name: String, among: Seq[OptionSpec]): Option[String] = {
    val key = name.toLowerCase(Locale.ROOT)
    val (best, distance) = among.map(o => o -> editDistance(key, o.key)).minBy(_._2)
    if (distance <= math.max(2, key.length / 4)) Some(best.name) else None
  }

  private[options] def editDistance(a: String, b: String): Int = {
    val d = Array.tabulate(a.length + 1, b.length + 1)((i, j) => if (i == 0) j else if (j == 0) i else 0)
    for (i <- 1 to a.length; j <- 1 to b.length) {
      val cost = if (a(i - 1) == b(j - 1)) 0 else 1
      d(i)(j) = math.min(math.min(d(i - 1)(j) + 1, d(i)(j - 1) + 1), d(i - 1)(j - 1) + cost)
    }
    d(a.length)(b.length)
  }
}
