// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.options

import java.util.Locale

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.client.{ConnectionConfig, CredentialsConfig}
import io.github.sparkkinesis.errors.KinesisOptionException

class KinesisSinkOptionsSuite extends AnyFunSuite with Matchers {
  import KinesisOptions._

  /** Every test names a region, so none depends on the machine's AWS configuration. */
  private val base = Map("streamName" -> "orders", "region" -> "us-east-1")

  private val secretKey = "fakeSecretKey/abcdefghijklmnopqrstuvwxyz01"

  private def parse(options: (String, String)*): KinesisSinkOptions = KinesisSinkOptions.parse(base ++ options)

  private def failure(options: Map[String, String]): KinesisOptionException =
    intercept[KinesisOptionException](KinesisSinkOptions.parse(options))

  private def failure(options: (String, String)*): KinesisOptionException = failure(base ++ options)

  test(
    "defaults: one stream, batches at the Kinesis limits, 4 calls in flight, 10 retries, order per key, no aggregation") {
    val options = KinesisSinkOptions.parse(base)
    options.streamName shouldBe Some("orders")
    options.connection shouldBe ConnectionConfig("us-east-1", None, CredentialsConfig.DefaultChain)
    options.put shouldBe PutSettings(maxRecordsPerPut = 500, maxBytesPerPut = 5L * 1024 * 1024,
      maxInFlightPuts = 4, maxPutRetries = 10, retryBackoffMs = 100, maxRetryBackoffMs = 5000)
    options.put.aggregate shouldBe false
    options.put.orderPerKey shouldBe true
    options.put.recordIds shouldBe false
  }

  test("the registry's defaults are what the parser applies") {
    sinkOptions.filter(_.usage == Usage.Write).map(o => o.name -> o.default) shouldBe Seq(
      "maxRecordsPerPut" -> Some("500"), "maxBytesPerPut" -> Some("5mb"), "maxInFlightPuts" -> Some("4"),
      "maxPutRetries" -> Some("10"), "putRetryBackoff" -> Some("100ms"), "maxPutRetryBackoff" -> Some("5s"),
      "maxPutLinger" -> Some("50ms"), "aggregation" -> Some("none"), "orderPerKey" -> Some("true"),
      "recordIds" -> Some("false"))
  }

  private val rows: Seq[(OptionSpec, String, KinesisSinkOptions => Any, Any)] = Seq(
    (StreamName, "clicks", _.streamName, Some("clicks")),
    (Region, "eu-west-1", _.connection.region, "eu-west-1"),
    (Endpoint, "http://localhost:4567", _.connection.endpoint, Some("http://localhost:4567")),
    (MaxRecordsPerPut, "100", _.put.maxRecordsPerPut, 100),
    (MaxBytesPerPut, "1mb", _.put.maxBytesPerPut, 1024L * 1024),
    (MaxInFlightPuts, "1", _.put.maxInFlightPuts, 1),
    (MaxPutRetries, "0", _.put.maxPutRetries, 0),
    (PutRetryBackoff, "1s", _.put.retryBackoffMs, 1000L),
    (MaxPutRetryBackoff, "1m", _.put.maxRetryBackoffMs, 60000L),
    (MaxPutLinger, "5ms", _.put.maxPutLingerMs, 5L),
    (Aggregation, "KPL", _.put.aggregate, true),
    (OrderPerKey, "false", _.put.orderPerKey, false),
    (RecordIds, "TRUE", _.put.recordIds, true))

  for {
    (spec, value, get, expected) <- rows
    name <- Seq(spec.name, spec.name.toLowerCase(Locale.ROOT), spec.name.toUpperCase(Locale.ROOT)).distinct
  } test(s"sink option $name is recognised") {
    val options = base.filter { case (k, _) => k.toLowerCase(Locale.ROOT) != spec.key } + (name -> value)
    get(KinesisSinkOptions.parse(options)) shouldBe expected
  }

  test("the rows above cover every sink option but those of credentials and the proxy (CredentialSourcesSuite, ...)") {
    val credentials = Set(AwsAccessKey, AwsSecretKey, AwsSessionToken, RoleArn, RoleExternalId,
      RoleSessionName, StsEndpoint, Profile, AwsCredentialsProvider, AwsCredentialsProviderSecret, ProxyHost, ProxyPort,
      ProxyUsername, ProxyPassword, NonProxyHosts)
    rows.map(_._1.name).toSet shouldBe sinkOptions.filterNot(credentials.contains).map(_.name).toSet
  }

  test("credentials work as for the source") {
    parse("awsAccessKey" -> "AKIAFAKE", "awsSecretKey" -> secretKey).connection.credentials shouldBe
      CredentialsConfig.StaticKeys("AKIAFAKE", secretKey, None)
    failure("awsSecretKey" -> secretKey).getCondition shouldBe "KINESIS_CONFLICTING_OPTIONS"
    parse("roleArn" -> "arn:aws:iam::123456789012:role/w").connection.credentials shouldBe a[
      CredentialsConfig.AssumeRole]
  }

  test("without streamName, rows name their streams (checked with the columns)") {
    KinesisSinkOptions.parse(Map("region" -> "us-east-1")).streamName shouldBe None
  }

  test("a write goes to one stream: a list or a bad name is rejected") {
    Seq("a,b", "a b", "", " ", "x" * 129).foreach { bad =>
      val e = failure("streamName" -> bad)
      e.getCondition shouldBe "KINESIS_INVALID_OPTION_VALUE"
      e.getMessage should include("'stream' column")
    }
  }

  private val invalidValues: Seq[(OptionSpec, String, String)] = Seq(
    (MaxRecordsPerPut, "0", "from 1 to 500"), (MaxRecordsPerPut, "501", "from 1 to 500"),
    (MaxRecordsPerPut, "many", "from 1 to 500"),
    (MaxBytesPerPut, "6mb", "at most 5mb"), (MaxBytesPerPut, "0", "above 0"), (MaxBytesPerPut, "big", "512kb"),
    (MaxInFlightPuts, "0", "from 1 to 64"), (MaxInFlightPuts, "65", "from 1 to 64"),
    (MaxPutRetries, "-1", "from 0 to 1000"), (MaxPutRetries, "1001", "from 0 to 1000"),
    (PutRetryBackoff, "0ms", "from 1ms"), (PutRetryBackoff, "soon", "400ms"),
    (MaxPutRetryBackoff, "2h", "600000ms"),
    (Aggregation, "kcl", "one of none, kpl"), (Aggregation, "", "one of none, kpl"),
    (OrderPerKey, "yes", "true or false"),
    (RecordIds, "1", "true or false"), (RecordIds, "", "true or false"))

  for ((spec, value, allowed) <- invalidValues) {
    test(s"${spec.name} = '$value' is rejected, naming the option, the value and what is allowed") {
      val e = failure(spec.name -> value)
      e.getCondition shouldBe "KINESIS_INVALID_OPTION_VALUE"
      e.getMessage should include(s"'${spec.name}'")
      e.getMessage should include(s"'$value'")
      e.getMessage should include(allowed)
    }
  }

  test("maxPutRetryBackoff must be at least putRetryBackoff") {
    val e = failure("putRetryBackoff" -> "2s", "maxPutRetryBackoff" -> "1s")
    e.getCondition shouldBe "KINESIS_CONFLICTING_OPTIONS"
    e.getMessage should (include("'putRetryBackoff'") and include("'maxPutRetryBackoff'"))
  }

  test("a source option in a write says it applies to reading only") {
    Seq("initialPosition" -> "latest", "MAXFETCHRATE" -> "1.0", "consumerMode" -> "efo").foreach { case (k, v) =>
      val e = failure(k -> v)
      e.getCondition shouldBe "KINESIS_OPTION_NOT_APPLICABLE"
      e.getMessage should include("applies only to reading from Kinesis (spark.readStream)")
      e.getMessage should include("not to writing")
    }
  }

  test("a sink option in a read says it applies to writing only") {
    val e = intercept[KinesisOptionException](
      KinesisSourceOptions.parse(Map("streamName" -> "s", "region" -> "us-east-1", "maxPutRetries" -> "3")))
    e.getCondition shouldBe "KINESIS_OPTION_NOT_APPLICABLE"
    e.getMessage should include("'maxPutRetries' applies only to writing to Kinesis")
  }

  test("an unknown option is rejected with the closest sink option") {
    val e = failure("maxRecordPerPut" -> "5")
    e.getCondition shouldBe "KINESIS_UNKNOWN_OPTION"
    e.getMessage should include("Did you mean 'maxRecordsPerPut'?")
    failure("streamNme" -> "x").getMessage should include("Did you mean 'streamName'?")
  }

  test("the options Spark reads from a writer pass through") {
    parse("checkpointLocation" -> "/tmp/chk", "queryName" -> "q", "asyncProgressTrackingEnabled" -> "false")
      .streamName shouldBe Some("orders")
  }

  test("secrets never appear in an error") {
    Seq(base + ("awsSecretKey" -> secretKey), base + ("awsSecretKye" -> secretKey),
      base + ("awsAccessKey" -> "AKIAFAKE") + ("awsSecretKey" -> secretKey) + ("maxPutRetries" -> "x"))
      .foreach { options =>
        val e = failure(options)
        e.getMessage should not include secretKey
        e.getMessageParameters.toString should not include secretKey
      }
    parse("awsAccessKey" -> "AKIAFAKE", "awsSecretKey" -> secretKey).toString should not include secretKey
  }

  test("the registry lists source and sink options apart, sharing the connection options") {
    names.toSeq should contain allOf ("streamName", "region", "initialPosition", "awsSecretKey")
    names.toSeq should not contain "maxPutRetries"
    sinkNames.toSeq should contain allOf ("streamName", "region", "endpoint", "awsAccessKey", "maxPutRetries")
    sinkNames.toSeq should not contain "initialPosition"
  }
}
