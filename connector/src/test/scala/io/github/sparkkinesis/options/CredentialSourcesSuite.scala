// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.options

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.internal.SQLConf
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.AWSKinesisConsumerManager
import io.github.sparkkinesis.client.CredentialsConfig
import io.github.sparkkinesis.client.credentials.{NoArgProvider, ParamProvider, ThrowingProvider}
import io.github.sparkkinesis.errors.KinesisOptionException

/** The options `profile`, `awsCredentialsProvider` and `awsCredentialsProviderSecret`. */
class CredentialSourcesSuite extends AnyFunSuite with Matchers {
  private val base = Map("streamName" -> "s", "region" -> "us-east-1")
  private val secret = "provider-param-S3CRET-value"

  private def credentials(options: (String, String)*): CredentialsConfig =
    KinesisSourceOptions.parse(base ++ options).connection.credentials

  private def failure(options: (String, String)*): KinesisOptionException =
    intercept[KinesisOptionException](KinesisSourceOptions.parse(base ++ options))

  private def shown(e: KinesisOptionException): String =
    e.getMessage + " " + e.getMessageParameters.asScala.mkString(" ") + " " + String.valueOf(e.getCause)

  test("profile names a profile of the AWS shared files, and may be what a role is assumed with") {
    credentials("profile" -> "rotating") shouldBe CredentialsConfig.Profile("rotating")
    credentials("profile" -> "rotating", "roleArn" -> "arn:aws:iam::123456789012:role/r") match {
      case role: CredentialsConfig.AssumeRole => role.base shouldBe CredentialsConfig.Profile("rotating")
      case other => fail(s"not a role: $other")
    }
  }

  test("a profile name the AWS SDK would not read is refused") {
    val e = failure("profile" -> "my profile")
    e.getCondition shouldBe "KINESIS_INVALID_OPTION_VALUE"
    e.getMessage should include("'profile'")
  }

  test("a provider class is named with its parameter, and built when the options are read") {
    credentials("awsCredentialsProvider" -> classOf[NoArgProvider].getName) shouldBe
      CredentialsConfig.ProviderClass(classOf[NoArgProvider].getName, None)
    credentials("awsCredentialsProvider" -> classOf[ParamProvider].getName,
      "awsCredentialsProviderSecret" -> secret) shouldBe
      CredentialsConfig.ProviderClass(classOf[ParamProvider].getName, Some(secret))
  }

  test("awslabs' names of the provider options are read as aliases") {
    credentials("kinesis.credentialProviderClass" -> classOf[ParamProvider].getName,
      "kinesis.credentialProviderParam" -> secret) shouldBe
      CredentialsConfig.ProviderClass(classOf[ParamProvider].getName, Some(secret))
  }

  test("a provider class that cannot be used fails when the DataFrame is defined, naming the option as typed") {
    val missing = failure("kinesis.credentialProviderClass" -> "com.example.Gone")
    missing.getCondition shouldBe "KINESIS_INVALID_OPTION_VALUE"
    missing.getMessage should include("'kinesis.credentialProviderClass'")
    missing.getMessage should include("class com.example.Gone was not found")
  }

  test("the parameter never shows in an error, not even when the provider's constructor quotes it") {
    val e = failure("awsCredentialsProvider" -> classOf[ThrowingProvider].getName,
      "awsCredentialsProviderSecret" -> secret)
    e.getMessage should include("cannot use '<redacted>'")
    shown(e) should not include secret
    val options = KinesisSourceOptions.parse(base ++ Map("awsCredentialsProvider" -> classOf[ParamProvider].getName,
      "awsCredentialsProviderSecret" -> secret))
    options.toString should not include secret
  }

  test("two sources of credentials together are refused, naming both") {
    val e = failure("profile" -> "p", "awsAccessKey" -> "AKIAFAKEACCESSKEY0001", "awsSecretKey" -> "s")
    e.getCondition shouldBe "KINESIS_CONFLICTING_OPTIONS"
    e.getMessage should (include("'awsAccessKey'") and include("'profile'"))
    failure("profile" -> "p", "awsCredentialsProvider" -> classOf[NoArgProvider].getName).getMessage should
      include("'awsCredentialsProvider'")
  }

  test("a parameter without its provider class is refused") {
    val e = failure("awsCredentialsProviderSecret" -> secret)
    e.getCondition shouldBe "KINESIS_CONFLICTING_OPTIONS"
    e.getMessage should include("add awsCredentialsProvider")
    shown(e) should not include secret
  }

  test("the consumer manager takes the new credentials and proxy options too") {
    AWSKinesisConsumerManager.parse(Map("region" -> "us-east-1", "profile" -> "p")).credentials shouldBe
      CredentialsConfig.Profile("p")
    AWSKinesisConsumerManager.parse(Map("region" -> "us-east-1", "proxyHost" -> "proxy", "proxyPort" -> "3128"))
      .proxy.map(_.port) shouldBe Some(3128)
  }

  test("Spark's default redaction pattern masks every secret option of this connector in plans") {
    // Spark prints a data source's options in plans, masking names that match spark.redaction.regex.
    val secrets = KinesisOptions.all.filter(_.secret).map(_.name)
    secrets should contain allOf ("awsCredentialsProviderSecret", "proxyPassword")
    SecretsInPlans.unmasked(SQLConf.get, secrets) shouldBe empty
  }

  test("awslabs' name of the provider's secret, which Spark's patterns miss, is masked in plans from load() on") {
    val conf = SQLConf.get
    val names = Seq("kinesis.credentialProviderClass", "kinesis.credentialProviderParam", "kinesis.streamName")
    try {
      SecretsInPlans.unmasked(conf, names) shouldBe Seq("kinesis.credentialProviderParam")
      SecretsInPlans.mask(names) shouldBe Seq("kinesis.credentialProviderParam")
      SecretsInPlans.unmasked(conf, names) shouldBe empty
      val plan = conf.redactOptions(Map(
          "kinesis.credentialProviderParam" -> "vault-token", "kinesis.streamName" -> "orders", "endpoint" -> "x"))
      plan("kinesis.credentialProviderParam") should not include "vault-token"
      plan("kinesis.streamName") shouldBe "orders"
      SecretsInPlans.mask(names) shouldBe empty // widened once, not at every load()
    } finally conf.unsetConf(SQLConf.SQL_OPTIONS_REDACTION_PATTERN.key)
  }
}
