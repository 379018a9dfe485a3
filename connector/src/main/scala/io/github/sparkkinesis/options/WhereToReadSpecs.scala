// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.options

import io.github.sparkkinesis.options.KinesisOptions.{OptionSpec, Usage}
import io.github.sparkkinesis.options.OptionKind._

/**
 * The registry's options of which streams are read, where Kinesis is, where a query starts and
 * stops, and how shards are fetched: the first part of [[KinesisOptions]] (which extends this);
 * the options page lists them in the order declared here.
 */
private[options] trait WhereToReadSpecs extends DeclaredSpecs {
  private val both = Usage.ReadAndWrite

  /**
   * The longest minFetchPeriod, maxFetchDuration and shardFetchInterval: an hour. Longer would
   * leave a trigger waiting for hours on an idle stream, and waits past Long.MaxValue overflow.
   */
  private val Hour: Long = 3600L * 1000

  val StreamName = declare(OptionSpec("streamName", None, "Comma-separated list of stream names to read.",
      usage = both, kind = NameList, shownDefault = Some("(required, or streamARN)"),
      writeDescription = Some("The one stream to write to; without it each row's `stream` column names its stream.")))
  val StreamARN = declare(OptionSpec("streamARN", None,
      "The streams to read by ARN instead of by name, one " +
        "or a comma-separated list (`arn:aws:kinesis:us-east-1:123456789012:stream/orders`); the region " +
        "comes from the ARNs, which must share one; every call names the stream by its ARN, so another account's " +
        "stream is the one read: through `roleArn` (a role of that account) or through the stream's resource " +
        "policy with your own credentials.", kind = NameList))
  val Region = declare(OptionSpec("region", None,
      "AWS region of the streams; must be a region that exists " +
        "(see [Authentication](authentication.md#region-and-endpoint)).", usage = both, emptyMeansNotGiven = true,
      shownDefault = Some("region the AWS SDK resolves locally")))
  val Endpoint = declare(OptionSpec("endpoint", None,
      "Kinesis endpoint URL (http:// or https://): VPC or FIPS " +
        "endpoints, local Kinesis.", usage = both, emptyMeansNotGiven = true,
      shownDefault = Some("the region's endpoint")))
  val InitialPosition = declare(OptionSpec("initialPosition", Some("latest"),
      "Where a new query starts: `latest`, `trim_horizon`, `earliest` (alias of trim_horizon), at_timestamp " +
        "as JSON `{\"at_timestamp\": \"06/25/2020 10:23:45 PDT\"}` with an optional `\"format\"` (a " +
        "`java.text.SimpleDateFormat` pattern; default `MM/dd/yyyy HH:mm:ss z`), or per-shard positions as " +
        "offset JSON, e.g. `{\"version\":1,\"shards\":{\"s\":{\"shardId-000000000000\":{\"type\":\"at\"," +
        "\"seq\":\"4959...\"}}}}` (`at` includes that record, `after` starts after it; shards not named start " +
        "at trim_horizon, but those a named shard descends from count as read; a line of a checkpoint's " +
        "`offsets/N` file works as is, and `python -m pyspark_kinesis offsets import` writes one from a qubole " +
        "or awslabs checkpoint).",
      kind = Position, shownDefault = Some("latest (streams); trim_horizon (batch reads)")))
  val EndingPosition = declare(OptionSpec("endingPosition", Some("latest"),
      "Where to stop: `latest` (the tip when the read is planned) or per-shard positions as offset JSON " +
        "(`after` = last record to read).", kind = Position, modes = Mode.batchOnly))
  val MaxRecordsPerFetch = declare(OptionSpec("maxRecordsPerFetch", Some("10000"),
      "Records asked for per GetRecords call; also the most user records (KPL aggregates hold many) a " +
        "prefetch fetch hands out, in both modes.", kind = IntRange(1, 10000)))
  val MaxFetchRate = declare(OptionSpec("maxFetchRate", Some("1.0"),
      "Read rate limit per shard in MiB/s (Kinesis allows 2 MiB/s per shard, which 2.0 reads).",
      kind = PositiveDecimal(2.0),
      modes = Mode.pollingOnly))
  val MinFetchPeriod = declare(OptionSpec("minFetchPeriod", Some("400ms"),
      "Shortest wait between GetRecords calls on a shard (Kinesis allows 5 calls/s).", kind = Duration(200, Hour)))
  val MaxFetchDuration = declare(OptionSpec("maxFetchDuration", Some("10s"),
      "How long a prefetch task reads before its records are made available (lower it, e.g. 200ms, " +
        "for latency).", kind = Duration(1, Hour), modes = Mode.notRealTime))
  val FetchBufferSize = declare(OptionSpec("fetchBufferSize", Some("20gb"),
      "How much prefetched data may wait for the query; prefetching pauses above it (a stopping " +
        "condition, not a hard bound).", kind = Size(), modes = Mode.notRealTime))
  val ShardsPerTask = declare(OptionSpec("shardsPerTask", Some("5"),
      "Shards one prefetching task reads, at least. Give the cluster no fewer than 2 × shards / shardsPerTask " +
        "cores so prefetching and the query run side by side; with fewer, tasks take more shards each, so that " +
        "prefetching needs at most half of the task slots.", kind = IntRange(1, 10000), modes = Mode.notRealTime))
  val ShardFetchInterval = declare(OptionSpec("shardFetchInterval", Some("1s"),
      "How often shards are listed while a reshard is under way (a shard the query reads has closed), to " +
        "follow it; otherwise once a minute, or this often if longer.", kind = Duration(1, Hour)))
}
