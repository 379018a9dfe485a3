// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.options

import java.util.Locale

import scala.jdk.CollectionConverters._

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.client.{ConnectionConfig, CredentialsConfig, ProxyConfig}
import io.github.sparkkinesis.client.credentials.{NoArgProvider, ParamProvider}
import io.github.sparkkinesis.errors.KinesisOptionException
import io.github.sparkkinesis.kpl.OutOfRangePolicy
import io.github.sparkkinesis.offsets.{KinesisSourceOffset, ShardKey, ShardPosition}

/** A valid value for an option, and what it must change in the parsed options. */
private final case class OptionRow(
    spec: KinesisOptions.OptionSpec,
    value: String,
    check: KinesisSourceOptions => Unit,
    alsoGiven: Map[String, String] = Map.empty)

class KinesisSourceOptionsSuite extends AnyFunSuite with Matchers {
  import KinesisOptions.{EndingPosition => EndingPositionOption, InitialPosition => InitialPositionOption, _}

  /** Every test names a region, so none depends on the machine's AWS configuration. */
  private val base = Map("streamName" -> "s", "region" -> "us-east-1")

  private val accessKey = "AKIAFAKEACCESSKEY0001"
  private val secretKey = "fakeSecretKey/abcdefghijklmnopqrstuvwxyz01"
  private val sessionToken = "FakeSessionToken+zzzzzzzzzzzzzzzzzzzzzz"

  private val roleArn = "arn:aws:iam::123456789012:role/reader"

  /** The role the options of a test assume, with the defaults of the options. */
  private def role(
      externalId: Option[String] = None,
      sessionName: String = "spark-kinesis",
      stsEndpoint: Option[String] = None,
      base: CredentialsConfig = CredentialsConfig.DefaultChain): CredentialsConfig.AssumeRole =
    CredentialsConfig.AssumeRole(roleArn, externalId, sessionName, stsEndpoint, "us-east-1", base)

  /** The 2020-06-25 10:23:45 PDT of the seed docs' example. */
  private val seedDocsMillis = java.time.Instant.parse("2020-06-25T17:23:45Z").toEpochMilli

  private def parse(options: (String, String)*): KinesisSourceOptions =
    KinesisSourceOptions.parse(base ++ options)

  /** Option errors are IllegalArgumentExceptions, so PySpark shows them as its own. */
  private def failure(options: Map[String, String]): KinesisOptionException =
    intercept[KinesisOptionException](KinesisSourceOptions.parse(options))

  private def failure(options: (String, String)*): KinesisOptionException = failure(base ++ options)

  /** Everything of an error a user or a log could see. */
  private def everythingShown(e: Throwable): String = {
    val causes = Iterator.iterate(e)(_.getCause).takeWhile(_ != null).toSeq
    val params = e match {
      case k: KinesisOptionException => k.getMessageParameters.asScala.mkString(" ")
      case _ => ""
    }
    (causes.map(c => s"$c ${c.getMessage}") :+ params).mkString("\n")
  }

  // ---- every option, in every spelling ----

  private val rows: Seq[OptionRow] = Seq(
    OptionRow(StreamName, "clicks, orders", _.streamNames shouldBe Seq("clicks", "orders")),
    OptionRow(StreamARN, s"${arn("us-east-1", "clicks")}, ${arn("us-east-1", "orders")}",
      _.streamNames shouldBe Seq("clicks", "orders")),
    OptionRow(Region, "eu-west-1", _.connection.region shouldBe "eu-west-1"),
    OptionRow(Endpoint, "http://localhost:4567", _.connection.endpoint shouldBe Some("http://localhost:4567")),
    OptionRow(InitialPositionOption, "trim_horizon", _.initialPosition shouldBe InitialPosition.TrimHorizon),
    OptionRow(MaxRecordsPerFetch, "500", _.fetch.maxRecordsPerFetch shouldBe 500),
    OptionRow(MaxFetchRate, "1.5", _.fetch.maxFetchRateMBps shouldBe 1.5),
    OptionRow(MinFetchPeriod, "1s", _.fetch.minFetchPeriodMs shouldBe 1000L),
    OptionRow(MaxFetchDuration, "2m", _.fetch.maxFetchDurationMs shouldBe 120000L),
    OptionRow(FetchBufferSize, "1gb", _.buffer.fetchBufferSize shouldBe (1L << 30)),
    OptionRow(ShardsPerTask, "3", _.buffer.shardsPerTask shouldBe 3),
    OptionRow(ShardFetchInterval, "5s", _.shardFetchIntervalMs shouldBe 5000L),
    OptionRow(AwsAccessKey, accessKey,
      _.connection.credentials shouldBe CredentialsConfig.StaticKeys(accessKey, secretKey, None),
      Map("awsSecretKey" -> secretKey)),
    OptionRow(AwsSecretKey, secretKey,
      _.connection.credentials shouldBe CredentialsConfig.StaticKeys(accessKey, secretKey, None),
      Map("awsAccessKey" -> accessKey)),
    OptionRow(AwsSessionToken, sessionToken,
      _.connection.credentials shouldBe CredentialsConfig.StaticKeys(accessKey, secretKey, Some(sessionToken)),
      Map("awsAccessKey" -> accessKey, "awsSecretKey" -> secretKey)),
    OptionRow(RoleArn, roleArn,
      _.connection.credentials shouldBe role()),
    OptionRow(RoleExternalId, "external-1",
      _.connection.credentials shouldBe role(externalId = Some("external-1")), Map("roleArn" -> roleArn)),
    OptionRow(RoleSessionName, "session-1",
      _.connection.credentials shouldBe role(sessionName = "session-1"), Map("roleArn" -> roleArn)),
    OptionRow(StsEndpoint, "https://sts.us-east-1.amazonaws.com",
      _.connection.credentials shouldBe role(stsEndpoint = Some("https://sts.us-east-1.amazonaws.com")),
      Map("roleArn" -> roleArn)),
    OptionRow(Profile, "rotating", _.connection.credentials shouldBe CredentialsConfig.Profile("rotating")),
    OptionRow(AwsCredentialsProvider, classOf[NoArgProvider].getName,
      _.connection.credentials shouldBe CredentialsConfig.ProviderClass(classOf[NoArgProvider].getName, None)),
    OptionRow(AwsCredentialsProviderSecret, "param-1",
      _.connection.credentials shouldBe CredentialsConfig.ProviderClass(classOf[ParamProvider].getName,
        Some("param-1")), Map("awsCredentialsProvider" -> classOf[ParamProvider].getName)),
    OptionRow(ProxyHost, "proxy.internal", _.connection.proxy shouldBe Some(ProxyConfig("proxy.internal", 3128)),
      Map("proxyPort" -> "3128")),
    OptionRow(ProxyPort, "8080", _.connection.proxy.map(_.port) shouldBe Some(8080), Map("proxyHost" -> "p")),
    OptionRow(ProxyUsername, "reader", _.connection.proxy.flatMap(_.username) shouldBe Some("reader"),
      Map("proxyHost" -> "p", "proxyPort" -> "1", "proxyPassword" -> "pw")),
    OptionRow(ProxyPassword, "pw", _.connection.proxy.flatMap(_.password) shouldBe Some("pw"),
      Map("proxyHost" -> "p", "proxyPort" -> "1", "proxyUsername" -> "reader")),
    OptionRow(NonProxyHosts, "*.local", _.connection.proxy.map(_.nonProxyHosts) shouldBe Some(Seq("*.local")),
      Map("proxyHost" -> "p", "proxyPort" -> "1")),
    OptionRow(ConsumerARN, "arn:aws:kinesis:us-east-1:123456789012:stream/s/consumer/c:1",
      _.efo.get.givenArns shouldBe Map("s" -> "arn:aws:kinesis:us-east-1:123456789012:stream/s/consumer/c:1"),
      Map("consumerMode" -> "efo")),
    OptionRow(CoalesceThresholdBlockSize, "1000", _.buffer.coalesceThresholdBlockSize shouldBe 1000L),
    OptionRow(CoalesceBinSize, "64000000", _.buffer.coalesceBinSize shouldBe 64000000L),
    OptionRow(EndingPositionOption,
      """{"version":1,"shards":{"s":{"shardId-000000000000":{"type":"after","seq":"12"}}}}""",
      _.endingPosition shouldBe EndingPosition.Positions(KinesisSourceOffset(Map(
            ShardKey("s", "shardId-000000000000") -> ShardPosition.AfterSequence("12"))))),
    OptionRow(ConsumerMode, "efo", _.efo should not be empty),
    OptionRow(RequireConsumerDeregistration, "true", _.efo.get.requireDeregistration shouldBe true,
      Map("consumerMode" -> "efo")),
    OptionRow(MaxShardsPerDescribe, "50", _.maxShardsPerDescribe shouldBe 50),
    OptionRow(ConsumerName, "my-consumer", _.efo.get.consumerName("s", "q") shouldBe "sparkkinesis_my-consumer",
      Map("consumerMode" -> "efo")),
    OptionRow(ConsumerNamePrefix, "app_", _.efo.get.prefix shouldBe "app_", Map("consumerMode" -> "efo")),
    OptionRow(ConsumerRefreshInterval, "60s", _.efo.get.refreshIntervalMs shouldBe 60000L,
      Map("consumerMode" -> "efo")),
    OptionRow(FailOnDataLoss, "false", _.fetch.failOnDataLoss shouldBe false),
    OptionRow(OutOfRangeUserRecords, "dropAfterSplit",
      _.outOfRangeUserRecords shouldBe OutOfRangePolicy.DropAfterSplit),
    OptionRow(RecordDecoder, "SDK", _.connection.sdkDecoding shouldBe true),
    OptionRow(StreamColumnName, "streamName", _.streamColumnName shouldBe "streamName"),
    OptionRow(IncludeRecordIds, "True", _.fetch.recordIds shouldBe true),
    OptionRow(MaxRecordsPerTrigger, "10,000", _.limits shouldBe TriggerLimits(maxRecords = Some(10000L))),
    OptionRow(MaxBytesPerTrigger, "64m", _.limits shouldBe TriggerLimits(maxBytes = Some(64L << 20))),
    OptionRow(MaxRecordsPerShardPerTrigger, "500", _.limits shouldBe TriggerLimits(maxRecordsPerShard = Some(500L))))

  test("batch limits: none by default; a bad value is refused naming the option and what it takes") {
    parse().limits.isEmpty shouldBe true
    failure("maxRecordsPerTrigger" -> "0").getMessage should include("maxRecordsPerTrigger")
    failure("maxRecordsPerTrigger" -> "lots").getMessage should include("maxRecordsPerTrigger")
    failure("maxBytesPerTrigger" -> "-1kb").getMessage should include("maxBytesPerTrigger")
    failure("kinesis.maxFetchRecordsPerShard" -> "0").getMessage should include("kinesis.maxFetchRecordsPerShard")
  }

  test("the table below covers every source option of the registry") {
    rows.map(_.spec.name) should contain theSameElementsAs KinesisOptions.sourceOptions.map(_.name)
  }

  for {
    row <- rows
    name <- Seq(row.spec.name, row.spec.name.toLowerCase(Locale.ROOT), row.spec.name.toUpperCase(Locale.ROOT)).distinct
  } test(s"option $name is recognised") {
    // Drop the base entry of the same option, whatever its case, so exactly one value is given
    // (streamARN names the streams instead of streamName).
    val replaced = if (row.spec == StreamARN) Set(row.spec.key, StreamName.key) else Set(row.spec.key)
    val options = base.filter { case (k, _) => !replaced(k.toLowerCase(Locale.ROOT)) } ++
      row.alsoGiven + (name -> row.value)
    row.check(KinesisSourceOptions.parse(options))
  }

  private def arn(region: String, stream: String) = s"arn:aws:kinesis:$region:123456789012:stream/$stream"

  test("streamARN names the streams and their region; region may repeat it but not contradict it") {
    val byArn = KinesisSourceOptions.parse(Map("streamARN" -> s"${arn("eu-west-2", "a")},${arn("eu-west-2", "b")}"))
    byArn.streamNames shouldBe Seq("a", "b")
    byArn.connection.region shouldBe "eu-west-2"
    // Offsets stay keyed by name; the calls name the ARN (partition kept as given).
    byArn.connection.streamArns shouldBe Map("a" -> arn("eu-west-2", "a"), "b" -> arn("eu-west-2", "b"))
    val china = "arn:aws-cn:kinesis:cn-north-1:123456789012:stream/c"
    KinesisSourceOptions.parse(Map("streamARN" -> china)).connection.streamArns shouldBe Map("c" -> china)
    parse().connection.streamArns shouldBe empty
    KinesisSourceOptions.parse(Map("streamARN" -> arn("eu-west-2", "a"), "region" -> "eu-west-2"))
      .connection.region shouldBe "eu-west-2"
    val contradicted = failure(Map("streamARN" -> arn("eu-west-2", "a"), "Region" -> "us-east-1"))
    contradicted.getCondition shouldBe "KINESIS_CONFLICTING_OPTIONS"
    contradicted.getMessage should (include("'Region'") and include("eu-west-2"))
  }

  test("streamARN refuses streamName beside it, two regions, repeats and anything but a stream ARN") {
    failure(Map("streamARN" -> arn("us-east-1", "a"), "streamName" -> "a")).getCondition shouldBe
      "KINESIS_CONFLICTING_OPTIONS"
    failure(Map("streamARN" -> s"${arn("us-east-1", "a")},${arn("eu-west-1", "b")}")).getMessage should
      include("streams of one region (these are in us-east-1, eu-west-1)")
    failure(Map("streamARN" -> s"${arn("us-east-1", "a")},${arn("us-east-1", "a")}")).getMessage should
      include("each stream named once")
    for (bad <-
        Seq("orders", "arn:aws:sqs:us-east-1:123456789012:queue/q", "arn:aws:kinesis:us-east-1:1234:stream/a")) {
      val e = failure(Map("streamARN" -> bad))
      e.getCondition shouldBe "KINESIS_INVALID_OPTION_VALUE"
      e.getMessage should (include("'streamARN'") and include(s"'$bad' is not one"))
    }
  }

  test("integers may carry thousands separators as the seed docs write them") {
    parse("maxRecordsPerFetch" -> "10,000").fetch.maxRecordsPerFetch shouldBe 10000
  }

  test("defaults are those of the seed docs") {
    val options = KinesisSourceOptions.parse(base)
    options.streamNames shouldBe Seq("s")
    options.initialPosition shouldBe InitialPosition.Latest
    options.fetch shouldBe FetchSettings(maxRecordsPerFetch = 10000, maxFetchRateMBps = 1.0,
      minFetchPeriodMs = 400, maxFetchDurationMs = 10000)
    options.shardFetchIntervalMs shouldBe 1000L
    options.maxShardsPerDescribe shouldBe 100
    options.connection shouldBe ConnectionConfig("us-east-1", None, CredentialsConfig.DefaultChain)
    // No user record is dropped unless the query asks for it.
    options.outOfRangeUserRecords shouldBe OutOfRangePolicy.Keep
  }

  test("recordDecoder comes from the session's Spark conf where the query does not give it") {
    val conf = Map("spark.sparkkinesis.recordDecoder" -> "sdk")
    KinesisSourceOptions.parse(base).connection.sdkDecoding shouldBe false
    KinesisSourceOptions.parse(base, conf).connection.sdkDecoding shouldBe true
    KinesisSourceOptions.parse(base + ("recordDecoder" -> "connector"), conf).connection.sdkDecoding shouldBe false
    val e = intercept[KinesisOptionException](
      KinesisSourceOptions.parse(base, Map("spark.sparkkinesis.recordDecoder" -> "fast")))
    e.getMessage should (include("spark.sparkkinesis.recordDecoder (Spark conf)") and include("'fast'") and
      include("connector, sdk"))
  }

  // ---- invalid values ----

  private val invalidValues: Seq[(OptionSpec, String)] = Seq(
    MaxFetchRate -> "0", MaxFetchRate -> "2.5", MaxFetchRate -> "abc", MaxFetchRate -> "",
    MaxFetchRate -> "-1", MaxFetchRate -> "NaN",
    MinFetchPeriod -> "199ms", MinFetchPeriod -> "fast", MinFetchPeriod -> "", MinFetchPeriod -> "5 parsecs",
    MaxFetchDuration -> "0s", MaxFetchDuration -> "-1s",
    MaxRecordsPerFetch -> "0", MaxRecordsPerFetch -> "10001", MaxRecordsPerFetch -> "many",
    MaxRecordsPerFetch -> "", MaxRecordsPerFetch -> "1.5",
    MaxShardsPerDescribe -> "10001", MaxShardsPerDescribe -> "0",
    OutOfRangeUserRecords -> "filter", OutOfRangeUserRecords -> "", RecordDecoder -> "jackson",
    StreamColumnName -> "data", StreamColumnName -> "", StreamColumnName -> "recordId",
    IncludeRecordIds -> "yes", IncludeRecordIds -> "",
    ShardFetchInterval -> "0ms", ShardFetchInterval -> "often",
    ConsumerRefreshInterval -> "3601s", ConsumerRefreshInterval -> "2h",
    FetchBufferSize -> "lots", FetchBufferSize -> "1.5gb", FetchBufferSize -> "0",
    ShardsPerTask -> "0", CoalesceBinSize -> "0", CoalesceThresholdBlockSize -> "big",
    ConsumerMode -> "kcl", ConsumerMode -> "",
    RequireConsumerDeregistration -> "yes", FailOnDataLoss -> "sometimes",
    InitialPositionOption -> "middle", InitialPositionOption -> "",
    InitialPositionOption -> "at_timestamp",
    InitialPositionOption -> """{"at_timestamp": "06/25/2020 10:23:45 PDT"""",
    InitialPositionOption -> """{"timestamp": "06/25/2020 10:23:45 PDT"}""",
    InitialPositionOption -> """{"at_timestamp": "yesterday"}""",
    InitialPositionOption -> """{"at_timestamp": "13/45/2020 10:23:45 PDT"}""",
    InitialPositionOption -> """{"at_timestamp": "06/25/2020 10:23:45 PDT", "format": "qqq"}""",
    Endpoint -> "not a url", Endpoint -> "ftp://kinesis.example.com", Endpoint -> "localhost:4567",
    Region -> "Mars 1", Region -> "us_east_1",
    StreamName -> "a b", StreamName -> "a,a", StreamName -> "clicks, clicks", StreamName -> "a,,b",
    StreamName -> "a,", StreamName -> "x" * 129, MaxRecordsPerFetch -> "1,0", CoalesceBinSize -> "12,34")

  for ((spec, value) <- invalidValues) {
    test(s"${spec.name} = '$value' is rejected, naming the option and the value") {
      val options = base.filter { case (k, _) => k.toLowerCase(Locale.ROOT) != spec.key } + (spec.name -> value)
      val e = failure(options)
      e.getCondition shouldBe "KINESIS_INVALID_OPTION_VALUE"
      e.getSqlState shouldBe "42616"
      e.getMessage should include(s"'${spec.name}'")
      e.getMessage should include(s"'$value'")
    }
  }

  test("an invalid value says what is allowed") {
    failure("maxFetchRate" -> "2.5").getMessage should include("at most 2.0")
    failure("minFetchPeriod" -> "199ms").getMessage should include("from 200ms to 3600000ms")
    failure("maxFetchDuration" -> "9999999999999d").getMessage should include("from 1ms to 3600000ms")
    failure("fetchBufferSize" -> "99999999999pb").getMessage should include("for option 'fetchBufferSize'")
    failure("maxRecordsPerFetch" -> "10001").getMessage should include("from 1 to 10000")
    failure("initialPosition" -> "middle").getMessage should include("trim_horizon")
    failure("streamName" -> "a,a").getMessage should include("each stream named once")
  }

  test("an error names the option as the user typed it") {
    failure("MAXFETCHRATE" -> "2.5").getMessage should include("for option 'MAXFETCHRATE'")
    failure(base - "streamName" + ("STREAMNAME" -> " ")).getMessage should include("Option 'STREAMNAME' is required")
    failure("AwsSessionToken" -> "t").getMessage should include("'AwsSessionToken', 'awsAccessKey'")
    failure("ConsumerName" -> "app").getMessage should include("'ConsumerName', 'consumerMode'")
    failure("RoleSessionName" -> "etl").getMessage should include("RoleSessionName applies only when a role")
  }

  test("offset JSON given as a position says what is wrong with it, not with a checkpoint") {
    val e = failure("endingPosition" -> """{"version": 1}""")
    e.getMessage should include("""per-shard positions as offset JSON such as {"version":1""")
    e.getMessage should include("""here it has no "shards" object""")
    e.getMessage should not include "checkpoint"
    failure("initialPosition" -> """{"version": 7, "shards": {}}""").getMessage should include(
      "here version 7 is not one this connector reads (up to 1)")
  }

  test("positions that name none of the streams read are refused; naming others as well is fine") {
    val other = """{"version":1,"shards":{"typo":{"shardId-000000000000":{"type":"trim_horizon"}}}}"""
    val both = """{"version":1,"shards":{"s":{"shardId-000000000000":{"type":"trim_horizon"}},""" +
      """"t":{"shardId-000000000000":{"type":"trim_horizon"}}}}"""
    Seq("initialPosition", "endingPosition").foreach { option =>
      failure(option -> other).getMessage should include(
        s"for option '$option': per-shard positions of the streams read (streamName 's'); these name only 'typo'")
      noException should be thrownBy parse(option -> both)
    }
  }

  test("a bad value is reported even for an option that is not supported yet") {
    failure("fetchBufferSize" -> "lots").getCondition shouldBe "KINESIS_INVALID_OPTION_VALUE"
  }

  // ---- initialPosition ----

  test("initialPosition words are matched case-insensitively; earliest means trim_horizon") {
    parse("initialPosition" -> "TRIM_HORIZON").initialPosition shouldBe InitialPosition.TrimHorizon
    parse("initialPosition" -> "earliest").initialPosition shouldBe InitialPosition.TrimHorizon
    parse("initialPosition" -> "Latest").initialPosition shouldBe InitialPosition.Latest
  }

  test("at_timestamp in the seed docs' default format") {
    parse("initialPosition" -> """{"at_timestamp": "06/25/2020 10:23:45 PDT"}""")
      .initialPosition shouldBe InitialPosition.AtTimestamp(seedDocsMillis)
  }

  test("at_timestamp with the seed docs' explicit format") {
    parse("initialPosition" ->
      """{"at_timestamp": "06/25/2020 10:23:45 PDT", "format": "MM/dd/yyyy HH:mm:ss ZZZ"}""")
      .initialPosition shouldBe InitialPosition.AtTimestamp(seedDocsMillis)
  }

  test("at_timestamp with an ISO-8601 format") {
    parse("initialPosition" ->
      """{"at_timestamp": "2020-06-25T17:23:45Z", "format": "yyyy-MM-dd'T'HH:mm:ssX"}""")
      .initialPosition shouldBe InitialPosition.AtTimestamp(seedDocsMillis)
  }

  test("an at_timestamp that does not match its format says so") {
    failure("initialPosition" -> """{"at_timestamp": "yesterday"}""")
      .getMessage should include("does not match the format")
  }

  // ---- missing, unknown, unsupported and conflicting options ----

  test("a missing streamName is reported") {
    Seq(Map("region" -> "us-east-1"), Map("region" -> "us-east-1", "streamName" -> " ")).foreach { options =>
      val e = failure(options)
      e.getCondition shouldBe "KINESIS_MISSING_OPTION"
      e.getMessage should include("'streamName'")
    }
  }

  test("an unknown option is named as written, with a suggestion for a likely typo") {
    Seq("streamname2" -> "streamName", "initalPosition" -> "initialPosition",
      "MAXFETCHRATES" -> "maxFetchRate").foreach { case (typo, meant) =>
      val e = failure(typo -> "x")
      e.getCondition shouldBe "KINESIS_UNKNOWN_OPTION"
      e.getMessage should include(s"'$typo'")
      e.getMessage should include(s"Did you mean '$meant'?")
    }
  }

  test("an unknown option far from every known one gets no suggestion") {
    val e = failure("checkpointLocationXYZ" -> "/tmp")
    e.getCondition shouldBe "KINESIS_UNKNOWN_OPTION"
    e.getMessage should not include "Did you mean"
  }

  test("enhanced fan-out options without consumerMode efo are refused, naming both") {
    val e = failure("consumerName" -> "app")
    e.getCondition shouldBe "KINESIS_CONFLICTING_OPTIONS"
    e.getMessage should include("'consumerName'")
    e.getMessage should include("consumerMode")
    parse("consumerMode" -> "efo").efo should not be empty
    parse().efo shouldBe empty
  }

  test("an access key needs its secret key, and the other way round") {
    Seq(Map("awsAccessKey" -> accessKey), Map("awsSecretKey" -> secretKey)).foreach { keys =>
      val e = failure(base ++ keys)
      e.getCondition shouldBe "KINESIS_CONFLICTING_OPTIONS"
      e.getMessage should (include("'awsAccessKey'") and include("'awsSecretKey'"))
    }
  }

  test("a session token needs both keys") {
    val e = failure("awsSessionToken" -> sessionToken)
    e.getCondition shouldBe "KINESIS_CONFLICTING_OPTIONS"
    e.getMessage should include("'awsSessionToken'")
  }

  // ---- secrets ----

  test("secrets never appear in an error") {
    val keys = Map("awsAccessKey" -> accessKey, "awsSecretKey" -> secretKey, "awsSessionToken" -> sessionToken)
    val failures: Seq[Map[String, String]] = Seq(
      base + ("awsAccessKey" -> accessKey),
      base + ("awsSecretKey" -> secretKey),
      base + ("awsSessionToken" -> sessionToken),
      base + ("awsSecretKey" -> secretKey) + ("awsSessionToken" -> sessionToken),
      base ++ keys + ("maxFetchRate" -> "9"),
      base ++ keys + ("region" -> "Mars 1"),
      base ++ keys + ("roleArn" -> "arn:aws:iam::123456789012:role/r") + ("roleSessionName" -> "a b"),
      base ++ keys + ("roleArn" -> "not-an-arn"),
      base ++ keys + ("roleExternalId" -> "ext-1"),
      base ++ keys + ("stsEndpoint" -> "sts.amazonaws.com"),
      base ++ keys + ("consumerMode" -> "efo") + ("consumerName" -> "bad name"),
      keys + ("region" -> "us-east-1"),
      // A misspelt secret option is unknown; its value must not be shown either.
      base + ("awsSecretKye" -> secretKey),
      base + ("awsAccessKeyId" -> accessKey))
    failures.foreach { options =>
      val shown = everythingShown(failure(options))
      shown should not include secretKey
      shown should not include accessKey
      shown should not include sessionToken
    }
  }

  test("the parsed options never show the secrets") {
    val options = parse("awsAccessKey" -> accessKey, "awsSecretKey" -> secretKey,
      "awsSessionToken" -> sessionToken)
    val static = options.connection.credentials
    static shouldBe a[CredentialsConfig.StaticKeys]
    Seq(static.toString, options.connection.toString, options.toString).foreach { text =>
      text should not include secretKey
      text should not include accessKey
      text should not include sessionToken
    }
    options.connection.where should not include secretKey
  }

  test("secret options Spark's narrowed redaction patterns would print are masked in plans all the same") {
    import org.apache.spark.sql.internal.SQLConf
    val names = Seq("streamName", "awsAccessKey", "awsSecretKey", "awsSessionToken")
    val conf = SQLConf.get
    SecretsInPlans.unmasked(conf, names) shouldBe empty
    conf.setConfString("spark.redaction.regex", "(?i)password")
    try {
      SecretsInPlans.mask(names) shouldBe Seq("awsAccessKey", "awsSecretKey", "awsSessionToken")
      SecretsInPlans.unmasked(conf, names) shouldBe empty
      val plan = conf.redactOptions(Map("streamName" -> "orders", "awsSecretKey" -> "s3cr3t"))
      plan("awsSecretKey") should not include "s3cr3t"
      plan("streamName") shouldBe "orders"
    } finally {
      conf.unsetConf("spark.redaction.regex")
      conf.unsetConf(SQLConf.SQL_OPTIONS_REDACTION_PATTERN.key)
    }
  }

  // ---- region ----

  test("the region option must name a region that exists") {
    Seq("us-gov-west-1", "ap-southeast-2", "cn-north-1", "eu-central-2", "il-central-1")
      .foreach(r => parse("region" -> r).connection.region shouldBe r)
    Seq("Mars 1", "us-nowhere-1", "eu-west", "useast1", "us-east-1a", "aws-global").foreach { r =>
      val e = failure("region" -> r)
      e.getCondition shouldBe "KINESIS_INVALID_OPTION_VALUE"
      e.getMessage should (include(s"'$r'") and include("such as us-east-1, eu-west-1"))
    }
  }

  test("a misspelt region gets the closest known one as a suggestion") {
    failure("region" -> "us-esat-1").getMessage should include("did you mean us-east-1?")
    failure("region" -> "eu-westt-1").getMessage should include("did you mean eu-west-1?")
  }

  test("a region resolved from the environment must exist as well, and the error says where it came from") {
    val previous = Option(System.getProperty("aws.region"))
    System.setProperty("aws.region", "us-nowhere-1")
    try {
      val e = intercept[KinesisOptionException](KinesisSourceOptions.parse(Map("streamName" -> "s")))
      e.getMessage should (include("'us-nowhere-1'") and include("resolved from the environment"))
    } finally {
      previous match {
        case Some(p) => System.setProperty("aws.region", p)
        case None => System.clearProperty("aws.region")
      }
    }
  }

  test("a region newer than the SDK is accepted when named like the others of its partition") {
    parse("region" -> "ap-southeast-9").connection.region shouldBe "ap-southeast-9"
    parse("region" -> "us-west-7").connection.region shouldBe "us-west-7"
  }

  test("the STS endpoint must be a URL, as the endpoint must") {
    Seq("sts.amazonaws.com", "ftp://sts.amazonaws.com", "http://").foreach { url =>
      val e = failure("roleArn" -> roleArn, "stsEndpoint" -> url)
      e.getCondition shouldBe "KINESIS_INVALID_OPTION_VALUE"
      e.getMessage should (include("'stsEndpoint'") and include(s"'$url'"))
    }
  }

  test("without the region option, the region comes from the AWS SDK's resolution") {
    val previous = Option(System.getProperty("aws.region"))
    System.setProperty("aws.region", "ap-northeast-3")
    try {
      KinesisSourceOptions.parse(Map("streamName" -> "s")).connection.region shouldBe "ap-northeast-3"
      // The option wins over the environment.
      KinesisSourceOptions.parse(Map("streamName" -> "s", "region" -> "eu-central-1"))
        .connection.region shouldBe "eu-central-1"
    } finally {
      previous match {
        case Some(p) => System.setProperty("aws.region", p)
        case None => System.clearProperty("aws.region")
      }
    }
  }

  // ---- roles ----

  test("with keys and a role, the role is assumed with the keys") {
    val options = parse("awsAccessKey" -> accessKey, "awsSecretKey" -> secretKey,
      "awsSessionToken" -> sessionToken, "roleArn" -> roleArn, "roleExternalId" -> "ext-1",
      "roleSessionName" -> "nightly", "stsEndpoint" -> "https://sts.eu-west-1.amazonaws.com",
      "region" -> "eu-west-1")
    options.connection.credentials shouldBe CredentialsConfig.AssumeRole(roleArn, Some("ext-1"), "nightly",
      Some("https://sts.eu-west-1.amazonaws.com"), "eu-west-1",
      CredentialsConfig.StaticKeys(accessKey, secretKey, Some(sessionToken)))
  }

  test("with a role and no keys, the role is assumed with the default chain, in the query's region") {
    val options = parse("roleArn" -> roleArn, "region" -> "ap-southeast-2")
    options.connection.credentials shouldBe CredentialsConfig.AssumeRole(roleArn, None, "spark-kinesis", None,
      "ap-southeast-2", CredentialsConfig.DefaultChain)
  }

  test("role ARNs of every partition, with paths, are accepted; anything else is not") {
    Seq("arn:aws:iam::123456789012:role/reader", "arn:aws-cn:iam::123456789012:role/a/b/reader",
      "arn:aws-us-gov:iam::123456789012:role/service-role/r+=,.@_-").foreach { arn =>
      parse("roleArn" -> arn).connection.credentials.asInstanceOf[CredentialsConfig.AssumeRole].roleArn shouldBe arn
    }
    Seq("reader", "arn:aws:iam::12345:role/r", "arn:aws:iam::123456789012:user/bob",
      "arn:aws:sts::123456789012:assumed-role/r/s").foreach { arn =>
      val e = failure("roleArn" -> arn)
      e.getCondition shouldBe "KINESIS_INVALID_OPTION_VALUE"
      e.getMessage should (include("'roleArn'") and include("arn:aws:iam::123456789012:role/"))
    }
  }

  test("session names and external ids follow STS's rules") {
    Seq("a", "has space", "x" * 65, "semi;colon").foreach { name =>
      failure("roleArn" -> roleArn, "roleSessionName" -> name).getMessage should include("'roleSessionName'")
    }
    Seq("a", "has space", "x" * 1225).foreach { id =>
      failure("roleArn" -> roleArn, "roleExternalId" -> id).getMessage should include("'roleExternalId'")
    }
  }

  test("role options without roleArn are rejected, naming both options") {
    Seq("roleExternalId" -> "ext-1", "roleSessionName" -> "s1", "stsEndpoint" -> "https://sts.amazonaws.com")
      .foreach { case (option, value) =>
        val e = failure(option -> value)
        e.getCondition shouldBe "KINESIS_CONFLICTING_OPTIONS"
        e.getMessage should (include(s"'$option'") and include("'roleArn'"))
      }
  }

  test("the session length is one hour unless a test shortens it") {
    role().sessionSeconds shouldBe 3600
    parse("roleArn" -> roleArn).connection.credentials.asInstanceOf[CredentialsConfig.AssumeRole]
      .sessionSeconds shouldBe 3600
    System.setProperty(ConnectionOptions.TestSessionSecondsProperty, "8")
    try {
      parse("roleArn" -> roleArn).connection.credentials.asInstanceOf[CredentialsConfig.AssumeRole]
        .sessionSeconds shouldBe 8
    } finally System.clearProperty(ConnectionOptions.TestSessionSecondsProperty)
  }

  test("the parsed role never shows the keys it is assumed with") {
    val options = parse("awsAccessKey" -> accessKey, "awsSecretKey" -> secretKey,
      "awsSessionToken" -> sessionToken, "roleArn" -> roleArn)
    Seq(options.toString, options.connection.toString, options.connection.credentials.toString,
      options.connection.credentials.describe).foreach { text =>
      text should not include secretKey
      text should not include accessKey
      text should not include sessionToken
      text should include(roleArn)
    }
  }
}
