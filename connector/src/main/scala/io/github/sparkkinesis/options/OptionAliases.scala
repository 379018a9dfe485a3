// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.options

import io.github.sparkkinesis.options.Dialect.{Awslabs, Qubole}
import io.github.sparkkinesis.options.KinesisOptions._

/**
 * The names other Kinesis connectors give this connector's options, and their options that have
 * no counterpart here, so their queries run here unchanged or fail saying what to do. The
 * option tables of docs/options.md list each option's aliases from here.
 */
object OptionAliases {
  private def qubole(name: String, translate: String => String = identity) = OptionAlias(name, Qubole, translate)
  private def awslabs(name: String, translate: String => String = identity) = OptionAlias(name, Awslabs, translate)

  val all: Seq[(OptionSpec, OptionAlias)] = Seq(
    StreamName -> awslabs("kinesis.streamName"),
    Region -> awslabs("kinesis.region"),
    Region -> awslabs("kinesis.kinesisRegion"),
    Endpoint -> qubole("endpointUrl"),
    Endpoint -> awslabs("kinesis.endpointUrl"),
    KinesisOptions.InitialPosition -> qubole("startingPosition", AliasValues.quboleStartingPosition),
    KinesisOptions.InitialPosition -> awslabs("kinesis.startingPosition", AliasValues.startingPosition),
    ConsumerMode -> awslabs("kinesis.consumerType", AliasValues.consumerType),
    ConsumerName -> awslabs("kinesis.consumerName"),
    FailOnDataLoss -> awslabs("kinesis.failOnDataLoss"),
    AwsAccessKey -> qubole("awsAccessKeyId"),
    AwsAccessKey -> awslabs("kinesis.awsAccessKeyId"),
    AwsSecretKey -> awslabs("kinesis.awsSecretKey"),
    AwsSessionToken -> awslabs("kinesis.sessionToken"),
    RoleArn -> qubole("awsSTSRoleARN"),
    RoleArn -> awslabs("kinesis.stsRoleArn"),
    RoleSessionName -> qubole("awsSTSSessionName"),
    RoleSessionName -> awslabs("kinesis.stsSessionName"),
    StsEndpoint -> awslabs("kinesis.stsEndpointUrl"),
    AwsCredentialsProvider -> awslabs("kinesis.credentialProviderClass"),
    AwsCredentialsProviderSecret -> awslabs("kinesis.credentialProviderParam"),
    // awslabs' proxy options are its sink's; here they apply to reads as well.
    ProxyHost -> awslabs("kinesis.sink.proxyAddress"),
    ProxyPort -> awslabs("kinesis.sink.proxyPort"),
    ProxyUsername -> awslabs("kinesis.sink.proxyUsername"),
    ProxyPassword -> awslabs("kinesis.sink.proxyPassword"),
    MaxRecordsPerFetch -> qubole("kinesis.executor.maxRecordPerRead"),
    MaxRecordsPerFetch -> awslabs("kinesis.getRecords.numberOfRecordsPerFetch"),
    MaxFetchDuration -> qubole("kinesis.executor.maxFetchTimeInMs", AliasValues.millis),
    MaxFetchDuration -> awslabs("kinesis.maxFetchTimePerShardSec", AliasValues.seconds),
    MinFetchPeriod -> qubole("kinesis.executor.idleTimeBetweenReadsInMs", AliasValues.millis),
    MinFetchPeriod -> awslabs("kinesis.getRecords.fetchIntervalMs", AliasValues.millis),
    // Their most records a batch reads from one shard.
    MaxRecordsPerShardPerTrigger -> qubole("kinesis.executor.maxFetchRecordsPerShard"),
    MaxRecordsPerShardPerTrigger -> awslabs("kinesis.maxFetchRecordsPerShard"),
    ShardFetchInterval -> qubole("kinesis.client.describeShardInterval"),
    ShardFetchInterval -> awslabs("kinesis.describeShardInterval"),
    // The sink.
    MaxPutLinger -> qubole("kinesis.executor.recordMaxBufferedTime", AliasValues.millis),
    MaxPutLinger -> awslabs("kinesis.sink.recordMaxBufferedTimeMs", AliasValues.millis),
    MaxInFlightPuts -> qubole("kinesis.executor.maxConnections"),
    MaxInFlightPuts -> awslabs("kinesis.sink.maxConnections"),
    Aggregation -> qubole("kinesis.executor.aggregationEnabled", AliasValues.aggregationEnabled),
    Aggregation -> awslabs("kinesis.sink.aggregationEnabled", AliasValues.aggregationEnabled))

  private val retries = "calls are retried with back-off by the connector itself; remove the option"
  private val noStore = "offsets live in the checkpoint alone (no metadata store); remove the option"
  private val flush = "a task writes everything it was given before it ends; remove the option"
  private val subscriptions = "subscriptions are renewed and retried by the connector itself; remove the option"

  val retired: Seq[RetiredOption] = Seq(
    RetiredOption("awsUseInstanceProfile", Qubole,
      "without keys or roleArn the AWS default credential chain is " +
        "used, which includes the instance profile; remove the option"),
    RetiredOption("kinesis.executor.addIdleTimeBetweenReads", Qubole,
      "GetRecords calls are always paced by minFetchPeriod; remove the option"),
    RetiredOption("kinesis.client.numRetries", Qubole, retries),
    RetiredOption("kinesis.client.retryIntervalMs", Qubole, retries),
    RetiredOption("kinesis.client.maxRetryIntervalMs", Qubole, retries),
    RetiredOption("kinesis.client.avoidEmptyBatches", Qubole,
      "a trigger with nothing new runs no batch; remove the option"),
    RetiredOption("kinesis.executor.flushwaittimemillis", Qubole, flush),
    // Misspelt so in qubole's code and README, and copied by its users.
    RetiredOption("kniesis.executor.flushwaittimemillis", Qubole, flush),
    RetiredOption("kinesis.executor.metadata.path", Qubole, noStore),
    RetiredOption("kinesis.sink.flushWaitTimeMs", Awslabs, flush),
    RetiredOption("kinesis.sink.recordTtl", Awslabs,
      "a record is sent until maxPutRetries is spent, then its task fails (nothing is dropped); use maxPutRetries"),
    RetiredOption("kinesis.clientNumRetries", Awslabs, retries),
    RetiredOption("kinesis.clientRetryIntervalsMs", Awslabs, retries),
    RetiredOption("kinesis.clientMaxRetryIntervalMs", Awslabs, retries),
    RetiredOption("kinesis.metadataCommitterType", Awslabs, noStore),
    RetiredOption("kinesis.metadataPath", Awslabs, noStore),
    RetiredOption("kinesis.metadataNumRetries", Awslabs, noStore),
    RetiredOption("kinesis.metadataRetryIntervalsMs", Awslabs, noStore),
    RetiredOption("kinesis.metadataMaxRetryIntervalMs", Awslabs, noStore),
    RetiredOption("kinesis.dynamodb.tableName", Awslabs, noStore),
    RetiredOption("kinesis.minBatchesToRetain", Awslabs,
      "Spark's spark.sql.streaming.minBatchesToRetain " +
        "alone decides, as the connector keeps nothing beside the checkpoint; remove the option"),
    RetiredOption("kinesis.checkNewRecordThreads", Awslabs,
      "new records are found by the prefetching tasks, not by driver threads; remove the option"),
    RetiredOption("kinesis.subscribeToShard.timeoutSec", Awslabs, subscriptions),
    RetiredOption("kinesis.subscribeToShard.maxRetries", Awslabs, subscriptions))

  private val byAlias: Map[String, (OptionSpec, OptionAlias)] = all.map { case (spec, a) => a.key -> (spec -> a) }.toMap
  private val retiredByKey: Map[String, RetiredOption] = retired.map(r => r.key -> r).toMap

  def find(name: String): Option[(OptionSpec, OptionAlias)] = byAlias.get(name.toLowerCase(java.util.Locale.ROOT))

  def findRetired(name: String): Option[RetiredOption] = retiredByKey.get(name.toLowerCase(java.util.Locale.ROOT))

  def of(spec: OptionSpec): Seq[OptionAlias] = all.collect { case (s, a) if s == spec => a }
}
