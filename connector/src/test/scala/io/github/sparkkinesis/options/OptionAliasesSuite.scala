// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.options

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.client.CredentialsConfig
import io.github.sparkkinesis.errors.KinesisOptionException
import io.github.sparkkinesis.offsets.{KinesisSourceOffset, ShardKey, ShardPosition}

/** Queries written for qubole's and awslabs' connectors, read with their option names and values. */
class OptionAliasesSuite extends AnyFunSuite with Matchers {

  private def failure(options: Map[String, String]): KinesisOptionException =
    intercept[KinesisOptionException](KinesisSourceOptions.parse(options))

  test("qubole's getting-started read runs as written, the region taken from its endpoint") {
    val options = KinesisSourceOptions.parse(Map(
        "streamName" -> "spark-streaming-example",
        "endpointUrl" -> "https://kinesis.eu-west-1.amazonaws.com",
        "awsAccessKeyId" -> "AKIAFAKEACCESSKEY0001",
        "awsSecretKey" -> "fakeSecret",
        "startingposition" -> "TRIM_HORIZON"))
    options.streamNames shouldBe Seq("spark-streaming-example")
    options.connection.endpoint shouldBe Some("https://kinesis.eu-west-1.amazonaws.com")
    options.connection.region shouldBe "eu-west-1"
    options.connection.credentials shouldBe CredentialsConfig.StaticKeys("AKIAFAKEACCESSKEY0001", "fakeSecret", None)
    options.initialPosition shouldBe InitialPosition.TrimHorizon
  }

  test("awslabs' README reads run as written, in both consumer types") {
    val awslabs = Map("kinesis.region" -> "us-east-2", "kinesis.streamName" -> "teststream",
      "kinesis.endpointUrl" -> "https://kinesis.us-east-2.amazonaws.com", "kinesis.startingposition" -> "LATEST")
    val polling = KinesisSourceOptions.parse(awslabs + ("kinesis.consumerType" -> "GetRecords"))
    polling.efo shouldBe None
    polling.connection.region shouldBe "us-east-2"
    polling.initialPosition shouldBe InitialPosition.Latest
    val efo = KinesisSourceOptions.parse(awslabs ++ Map("kinesis.consumerType" -> "SubscribeToShard",
      "kinesis.consumerName" -> "TestConsumer"))
    efo.efo.get.consumerName("teststream", "query-id") shouldBe "sparkkinesis_TestConsumer"
  }

  test("durations in bare milliseconds or seconds, AT_TIMESTAMP, and aggregationEnabled translate") {
    val options = KinesisSourceOptions.parse(Map("kinesis.streamName" -> "s", "kinesis.region" -> "us-east-1",
        "kinesis.executor.maxFetchTimeInMs" -> "1500", "kinesis.getRecords.fetchIntervalMs" -> "300",
        "kinesis.startingPosition" -> "AT_TIMESTAMP 2023-08-30T19:00:05Z"))
    options.fetch.maxFetchDurationMs shouldBe 1500L
    options.fetch.minFetchPeriodMs shouldBe 300L
    options.initialPosition shouldBe InitialPosition.AtTimestamp(java.time.Instant.parse("2023-08-30T19:00:05Z")
        .toEpochMilli)
    val sink = KinesisSinkOptions.parse(Map("kinesis.streamName" -> "out", "kinesis.region" -> "us-east-1",
        "kinesis.sink.aggregationEnabled" -> "true", "kinesis.sink.recordMaxBufferedTimeMs" -> "1000",
        "kinesis.sink.maxConnections" -> "2"))
    (sink.put.aggregate, sink.put.maxPutLingerMs, sink.put.maxInFlightPuts) shouldBe ((true, 1000L, 2))
    KinesisSinkOptions.parse(Map("streamName" -> "out", "region" -> "us-east-1",
        "kinesis.executor.aggregationEnabled" -> "false")).put.aggregate shouldBe false
  }

  test("qubole's per-shard startingposition JSON (its offset log's form) continues where each position says") {
    val qubole = """{"metadata":{"streamName":"s","batchId":"3"},""" +
      """"shardId-000000000000":{"iteratorType":"AFTER_SEQUENCE_NUMBER","iteratorPosition":"4951"},""" +
      """"shardId-000000000001":{"iteratorType":"TRIM_HORIZON","iteratorPosition":""}}"""
    val options = KinesisSourceOptions.parse(Map("streamName" -> "s", "region" -> "us-east-1",
        "startingposition" -> qubole))
    options.initialPosition shouldBe InitialPosition.Positions(KinesisSourceOffset(Map(
          ShardKey("s", "shardId-000000000000") -> ShardPosition.AfterSequence("4951"),
          ShardKey("s", "shardId-000000000001") -> ShardPosition.TrimHorizon)))
    val e = failure(Map("streamName" -> "s", "region" -> "us-east-1",
        "startingposition" ->
          """{"metadata":{"streamName":"s","batchId":"3"},"shardId-0":{"iteratorType":"SOMEWHERE"}}"""))
    e.getMessage should (include("startingposition") and include("SOMEWHERE"))
  }

  test("a value an alias cannot take is refused naming the alias as typed") {
    val e =
      failure(Map("kinesis.streamName" -> "s", "kinesis.region" -> "us-east-1", "kinesis.consumerType" -> "Kafka"))
    e.getCondition shouldBe "KINESIS_INVALID_OPTION_VALUE"
    e.getMessage should (include("'kinesis.consumerType'") and include("'Kafka'"))
  }

  test("one option under two names that agree is taken, as awslabs documents both region names") {
    val parsed = KinesisSourceOptions.parse(Map("kinesis.streamName" -> "s", "kinesis.region" -> "us-east-1",
        "kinesis.kinesisRegion" -> "us-east-1", "kinesis.sessionToken" -> "token", "kinesis.awsAccessKeyId" -> "AKIA",
        "kinesis.awsSecretKey" -> "secret"))
    parsed.connection.region shouldBe "us-east-1"
    val e = failure(Map("kinesis.streamName" -> "s", "kinesis.region" -> "us-east-1",
        "kinesis.kinesisRegion" -> "eu-west-1"))
    e.getCondition shouldBe "KINESIS_CONFLICTING_OPTIONS"
    e.getMessage should (include("different values") and not include "eu-west-1")
  }

  test("qubole's sink keys without a counterpart, misspelt as its README writes one, say what to do") {
    Seq("kniesis.executor.flushwaittimemillis", "kinesis.executor.metadata.path").foreach { key =>
      val e = intercept[KinesisOptionException](KinesisSinkOptions.parse(Map("streamName" -> "s",
            "region" -> "us-east-1", key -> "1000")))
      e.getCondition shouldBe "KINESIS_OPTION_WITHOUT_COUNTERPART"
      e.getMessage should include(key)
    }
  }

  test("one option given under two names is refused, naming both") {
    val e = failure(Map("streamName" -> "a", "kinesis.streamName" -> "b", "region" -> "us-east-1"))
    e.getCondition shouldBe "KINESIS_CONFLICTING_OPTIONS"
    e.getMessage should (include("'kinesis.streamName'") and include("'streamName'") and include("give it once"))
    failure(Map("streamName" -> "a", "region" -> "us-east-1", "endpointUrl" -> "http://localhost:1",
        "kinesis.endpointUrl" -> "http://localhost:2")).getCondition shouldBe "KINESIS_CONFLICTING_OPTIONS"
  }

  test("an option with no counterpart here fails saying what to do instead") {
    val e = failure(Map("kinesis.streamName" -> "s", "kinesis.region" -> "us-east-1",
        "kinesis.metadataCommitterType" -> "DYNAMODB"))
    e.getCondition shouldBe "KINESIS_OPTION_WITHOUT_COUNTERPART"
    e.getMessage should (include("'kinesis.metadataCommitterType'") and include("awslabs") and
      include("offsets live in the checkpoint"))
    failure(Map("streamName" -> "s", "region" -> "us-east-1", "awsUseInstanceProfile" -> "true"))
      .getMessage should include("default credential chain")
  }

  test("secret options stay secret under their aliases") {
    KinesisOptions.isSecret("kinesis.awsSecretKey") shouldBe true
    KinesisOptions.isSecret("awsAccessKeyId") shouldBe true
    val e = failure(Map("streamName" -> "s", "region" -> "us-east-1", "kinesis.awsAccessKeyId" -> "   "))
    e.getMessage should not include "   '"
  }

  test("every alias names an option of this connector and no alias is an option's own name") {
    OptionAliases.all.foreach { case (spec, alias) =>
      KinesisOptions.find(alias.name) shouldBe None
      KinesisOptions.all should contain(spec)
    }
    val names = OptionAliases.all.map(_._2.key) ++ OptionAliases.retired.map(_.key)
    names.distinct.size shouldBe names.size
  }

  test("the region of an AWS endpoint, FIPS and China included; none for other endpoints") {
    ConnectionOptions.regionOfEndpoint("https://kinesis.ap-southeast-2.amazonaws.com") shouldBe Some("ap-southeast-2")
    ConnectionOptions.regionOfEndpoint("https://kinesis-fips.us-gov-west-1.amazonaws.com/") shouldBe
      Some("us-gov-west-1")
    ConnectionOptions.regionOfEndpoint("https://kinesis.cn-north-1.amazonaws.com.cn") shouldBe Some("cn-north-1")
    ConnectionOptions.regionOfEndpoint("http://localhost:4567") shouldBe None
    ConnectionOptions.regionOfEndpoint("https://vpce-1.kinesis.us-east-1.vpce.amazonaws.com") shouldBe None
  }
}
