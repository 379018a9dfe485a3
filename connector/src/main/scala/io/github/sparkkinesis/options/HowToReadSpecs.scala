// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.options

import io.github.sparkkinesis.kpl.OutOfRangePolicy
import io.github.sparkkinesis.options.KinesisOptions.OptionSpec
import io.github.sparkkinesis.options.OptionKind._

/**
 * The registry's options of how much a micro-batch reads, what becomes of odd records, the
 * columns, and the enhanced fan-out consumer: part of [[KinesisOptions]] (which extends this),
 * after the credential and proxy options; the options page lists them in the order declared here.
 */
private[options] trait HowToReadSpecs extends DeclaredSpecs {
  private val Hour: Long = 3600L * 1000

  val CoalesceThresholdBlockSize = declare(OptionSpec("coalesceThresholdBlockSize", Some("10000000"),
      "When prefetched blocks average less than this many bytes, a batch packs several shards into one task.",
      kind = LongAtLeast(1), modes = Mode.notRealTime))
  val CoalesceBinSize = declare(OptionSpec("coalesceBinSize", Some("128000000"),
      "The bytes a packed task aims for.", kind = LongAtLeast(1), modes = Mode.notRealTime))
  val MaxRecordsPerTrigger = declare(OptionSpec("maxRecordsPerTrigger", None,
      "The most records (KPL user records) a micro-batch reads, as Kafka's maxOffsetsPerTrigger: shared fairly " +
        "among the shards that have records, parents before children. Honoured by Trigger.AvailableNow (several " +
        "batches up to the end fixed at its start); not in real-time mode.",
      kind = LongAtLeast(1), modes = Mode.notRealTime))
  val MaxBytesPerTrigger = declare(OptionSpec("maxBytesPerTrigger", None,
      "The most record bytes (data plus partition keys) a micro-batch reads, shared as maxRecordsPerTrigger is. " +
        "A batch holds at least one record, however large.",
      kind = Size(), modes = Mode.notRealTime))
  val MaxRecordsPerShardPerTrigger = declare(OptionSpec("maxRecordsPerShardPerTrigger", None,
      "The most records a micro-batch reads from any one shard.", kind = LongAtLeast(1), modes = Mode.notRealTime))
  val ConsumerMode = declare(OptionSpec("consumerMode", Some("polling"),
      "`polling` (GetRecords, the shard's 2 MB/s shared with other readers) or `efo` (enhanced fan-out: a " +
        "registered consumer with its own 2 MB/s per shard).", kind = Choice(Seq("polling", "efo"))))
  val RequireConsumerDeregistration = declare(OptionSpec("requireConsumerDeregistration", Some("false"),
      "Deregister the EFO consumer on query stop.", kind = Bool, modes = Mode.efoOnly))
  val FailOnDataLoss = declare(OptionSpec("failOnDataLoss", Some("true"),
      "Fail the query (`KINESIS_DATA_LOSS`) when records it still had to read were deleted by retention " +
        "first; `false` logs it, counts it in `dataLossEvents` and goes on from the oldest record left. See " +
        "[KPL and data loss](reading.md#kpl-aggregated-records).", kind = Bool))
  val OutOfRangeUserRecords = declare(OptionSpec("outOfRangeUserRecords", Some("keep"),
      "What becomes of user records of a KPL aggregate whose hash key lies outside the shard holding it. " +
        "`keep`: every one is read (the AWS aggregation libraries mix keys in one aggregate on purpose), except " +
        "those its producer marked as written again (this connector's sink after a split). `dropAfterSplit`: " +
        "also drops them where the shard was split from a parent whose range holds the whole aggregate (the " +
        "KPL writes those again; loses records of mixed-key producers on split streams). `drop`: the KCL's " +
        "filter, drops every one (loses records of mixed-key producers). Counted in `outOfRangeRecords` and " +
        "`outOfRangeRecordsDropped`. See [KPL aggregated records](reading.md#kpl-aggregated-records).",
      kind = Choice(OutOfRangePolicy.all.map(_.name))))
  val RecordDecoder = declare(OptionSpec("recordDecoder", Some("connector"),
      "Who reads GetRecords answers and SubscribeToShard events: `connector`, the connector's own decoders " +
        "(several times less CPU per record), or `sdk`, the AWS SDK's own unmarshalling, with the same rows " +
        "and offsets. Try `sdk` first when records are suspected of being read wrong. Also set for every " +
        "query of a session by the Spark conf `spark.sparkkinesis.recordDecoder`.",
      kind = Choice(Seq("connector", "sdk")), sessionConf = Some("spark.sparkkinesis.recordDecoder")))
  val StreamColumnName = declare(OptionSpec("streamColumnName", Some("stream"),
      "The name of the column that holds each record's stream: `streamName` gives the column the name " +
        "qubole's and awslabs' connectors give it, so a query moved from them reads on unchanged.",
      kind = Text))
  val IncludeRecordIds = declare(OptionSpec("includeRecordIds", Some("false"),
      "Adds a last column `recordId` (string): the id a writer with `recordIds` gave the record, the same " +
        "for every copy at-least-once writing made of it, null for records without one. Drop the repeats " +
        "with `dropDuplicatesWithinWatermark([\"recordId\"])`. See " +
        "[Exactly once after deduplication](writing.md#exactly-once-after-deduplication).", kind = Bool))
  val MaxShardsPerDescribe = declare(OptionSpec("maxShardsPerDescribe", Some("100"),
      "Shards per ListShards page.", kind = IntRange(1, 10000)))
  val ConsumerName = declare(OptionSpec("consumerName", None,
      "EFO consumer name, or a comma-separated list, one per stream.", kind = NameList, modes = Mode.efoOnly,
      shownDefault = Some("the query id")))
  val ConsumerNamePrefix = declare(OptionSpec("consumerNamePrefix", Some("sparkkinesis_"),
      "Prefix of EFO consumer names (`databricks_` to reuse Databricks consumers).", modes = Mode.efoOnly))
  val ConsumerARN = declare(OptionSpec("consumerARN", None,
      "The ARN of an enhanced fan-out consumer registered elsewhere, or a comma-separated list, one per stream " +
        "(`arn:aws:kinesis:us-east-1:123456789012:stream/orders/consumer/reader:1700000000`): read with it as " +
        "is, never registered nor deregistered; checked to be ACTIVE and to belong to the stream read. Instead " +
        "of consumerName, consumerNamePrefix and requireConsumerDeregistration.", kind = NameList,
      modes = Mode.efoOnly))
  val ConsumerRefreshInterval = declare(OptionSpec("consumerRefreshInterval", Some("300s"),
      "How often the EFO consumer registration is checked.", kind = Duration(1000, Hour), modes = Mode.efoOnly))
}
