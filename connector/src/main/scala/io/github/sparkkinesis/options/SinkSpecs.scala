// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.options

import io.github.sparkkinesis.options.KinesisOptions.{OptionSpec, Usage}
import io.github.sparkkinesis.options.OptionKind._

/**
 * The registry's options of the sink (writing), besides the connection options it shares with
 * reading: part of [[KinesisOptions]] (which extends this), kept here so the registry's file stays
 * readable; declared last, so listed last. Parsed by [[KinesisSinkOptions]].
 */
private[options] trait SinkSpecs extends DeclaredSpecs {
  private val write = Usage.Write

  val MaxRecordsPerPut = declare(OptionSpec("maxRecordsPerPut", Some("500"),
      "Most records in one PutRecords call (500 is the Kinesis limit).", usage = write, kind = IntRange(1, 500)))
  val MaxBytesPerPut = declare(OptionSpec("maxBytesPerPut", Some("5mb"),
      "Most bytes (data plus partition keys) in one call (5mb is the Kinesis limit); a larger record goes alone.",
      usage = write, kind = Size(5L * 1024 * 1024)))
  val MaxInFlightPuts = declare(OptionSpec("maxInFlightPuts", Some("4"),
      "PutRecords calls one task keeps in flight at once.", usage = write, kind = IntRange(1, 64)))
  val MaxPutRetries = declare(OptionSpec("maxPutRetries", Some("10"),
      "How often a refused record (throttling included) is sent again before its task fails.", usage = write,
      kind = IntRange(0, 1000)))
  val PutRetryBackoff = declare(OptionSpec("putRetryBackoff", Some("100ms"),
      "Wait before the first retry; doubled each retry, randomized.", usage = write, kind = Duration(1, 600000)))
  val MaxPutRetryBackoff = declare(OptionSpec("maxPutRetryBackoff", Some("5s"),
      "Longest wait between retries (at least putRetryBackoff).", usage = write, kind = Duration(1, 600000)))

  val MaxPutLinger = declare(OptionSpec("maxPutLinger", Some("50ms"),
      "Longest a record waits for its PutRecords call to fill before it is sent anyway: keeps latency low " +
        "when rows come slowly, as in real-time mode. `KinesisForeachWriter` (`foreach_kinesis`) defaults to 5ms.",
      usage = write, kind = Duration(1, 600000)))

  val Aggregation = declare(OptionSpec("aggregation", Some("none"),
      "`kpl` packs the rows bound for one shard into KPL aggregates of up to 1 MiB (one Kinesis record " +
        "each), which this connector, the KCL and the Databricks Runtime split again: far fewer Kinesis " +
        "records for small rows; needs `kinesis:ListShards`. `none`: one Kinesis record per row. See " +
        "[Writing KPL aggregates](writing.md#writing-kpl-aggregates).", usage = write,
      kind = Choice(Seq("none", "kpl"))))
  val OrderPerKey = declare(OptionSpec("orderPerKey", Some("true"),
      "Keep each partition key's records in the order the task wrote them, with `maxInFlightPuts` calls " +
        "in parallel (a call carries one record per key, or one aggregate per shard); `false` lets a " +
        "key's records share calls and overtake each other on retries, for many records per key without " +
        "aggregation.", usage = write, kind = Bool))
  val RecordIds = declare(OptionSpec("recordIds", Some("false"),
      "Gives every row an id, the same each time Spark sends the row again (the query's id, the batch, " +
        "the partition and the row's place in it), carried as a KPL tag: each record is put as a KPL " +
        "aggregate, which readers that do not split aggregates (Firehose, plain GetRecords) see as such. " +
        "This connector's `includeRecordIds` reads the ids. See " +
        "[Exactly once after deduplication](writing.md#exactly-once-after-deduplication).", usage = write, kind = Bool))
}
