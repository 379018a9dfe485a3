// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.credentials

import java.time.{Duration, Instant}

import scala.jdk.OptionConverters._

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers
import software.amazon.awssdk.auth.credentials.{AwsCredentials => SdkCredentials, AwsSessionCredentials}

import io.github.sparkkinesis.FakeSts
import io.github.sparkkinesis.client.CredentialsConfig._
import io.github.sparkkinesis.errors.KinesisConnectorException
import io.github.sparkkinesis.client.{AccessKeys, ConnectionConfig}
import io.github.sparkkinesis.client.failures.AwsFailures
import io.github.sparkkinesis.client.sdk.KinesisClients
import io.github.sparkkinesis.client.CredentialsConfig

class AwsCredentialsSuite extends AnyFunSuite with Matchers {

  private val accessKey = "AKIACREDSUITE0000001"
  private val secretKey = "credSuiteSecret/abcdefghijklmnopqrstuvw"
  private val sessionToken = "CredSuiteSessionToken+zzzzzzzzzzzzzzzz"
  private val roleArn = "arn:aws:iam::123456789012:role/reader"

  /** Each test its own session name, so it gets its own provider (they are cached per JVM). */
  private def role(sts: FakeSts, session: String, base: CredentialsConfig = StaticKeys(accessKey, secretKey, None),
      externalId: Option[String] = None, sessionSeconds: Int = 3600): AssumeRole =
    AssumeRole(roleArn, externalId, session, Some(sts.endpoint), "us-east-1", base, sessionSeconds)

  private def withSystemProperties[T](props: (String, String)*)(body: => T): T = {
    val saved = props.map { case (k, _) => k -> Option(System.getProperty(k)) }
    props.foreach { case (k, v) => System.setProperty(k, v) }
    try body
    finally saved.foreach {
        case (k, Some(v)) => System.setProperty(k, v)
        case (k, None) => System.clearProperty(k)
      }
  }

  private def eventually(timeout: Duration)(condition: => Boolean): Unit = {
    val deadline = System.nanoTime() + timeout.toNanos
    while (!condition) {
      if (System.nanoTime() > deadline) fail(s"condition not met within $timeout")
      Thread.sleep(50)
    }
  }

  test("static keys resolve to exactly the keys given, with or without a session token") {
    val basic = AwsCredentials.acquire(StaticKeys(accessKey, secretKey, None)).resolveCredentials()
    (basic.accessKeyId(), basic.secretAccessKey()) shouldBe ((accessKey, secretKey))
    basic should not be an[AwsSessionCredentials]
    val session = AwsCredentials.acquire(StaticKeys(accessKey, secretKey, Some(sessionToken))).resolveCredentials()
    session.asInstanceOf[AwsSessionCredentials].sessionToken() shouldBe sessionToken
  }

  test("the default chain is resolved in this JVM and re-resolved on every use") {
    withSystemProperties("aws.accessKeyId" -> "AKIAFROMSYSPROPS0001", "aws.secretAccessKey" -> "sys-secret-1") {
      val provider = AwsCredentials.acquire(DefaultChain)
      val first = provider.resolveCredentials()
      first.accessKeyId() shouldBe "AKIAFROMSYSPROPS0001"
      AwsCredentials.describeInUse(DefaultChain) shouldBe "access key AKIA…0001 from the AWS default " +
        "credential chain (JVM system properties aws.accessKeyId/aws.secretAccessKey)"
      System.setProperty("aws.accessKeyId", "AKIAFROMSYSPROPS0002")
      System.setProperty("aws.secretAccessKey", "sys-secret-2")
      provider.resolveCredentials().accessKeyId() shouldBe "AKIAFROMSYSPROPS0002"
    }
  }

  test("one provider per credentials per JVM, shared by every client") {
    val keys = StaticKeys(accessKey, secretKey, None)
    AwsCredentials.acquire(keys) should be theSameInstanceAs AwsCredentials.acquire(keys.copy())
    AwsCredentials.acquire(keys) should not be theSameInstanceAs(AwsCredentials.acquire(DefaultChain))
  }

  test("a role is assumed with the base keys, sending role ARN, external id, session name and duration") {
    val sts = new FakeSts()
    try {
      val config = role(sts, "credentials-suite-1", externalId = Some("external-42"))
      val credentials = AwsCredentials.acquire(config).resolveCredentials()
      credentials.accessKeyId() shouldBe sts.accessKeyId(1)
      credentials.asInstanceOf[AwsSessionCredentials].sessionToken() shouldBe "fake-role-token-1"
      val call = sts.assumeRoleCalls.head
      call.params("Action") shouldBe "AssumeRole"
      call.params("RoleArn") shouldBe roleArn
      call.params("ExternalId") shouldBe "external-42"
      call.params("RoleSessionName") shouldBe "credentials-suite-1"
      call.params("DurationSeconds") shouldBe "3600"
      call.signedWith shouldBe Some(accessKey)
    } finally sts.close()
  }

  test("without an external id none is sent") {
    val sts = new FakeSts()
    try {
      AwsCredentials.acquire(role(sts, "credentials-suite-2")).resolveCredentials()
      sts.assumeRoleCalls.head.params.keySet should not contain "ExternalId"
    } finally sts.close()
  }

  test("assumed-role credentials are renewed in the background before they expire") {
    val sts = new FakeSts()
    try {
      val provider = AwsCredentials.acquire(role(sts, "credentials-suite-3", sessionSeconds = 4))
      val first = provider.resolveCredentials()
      // Renewed without anyone asking (prefetch at half the session), well before expiry.
      eventually(Duration.ofSeconds(10))(sts.assumeRoleCalls.size >= 3)
      val later: SdkCredentials = provider.resolveCredentials()
      later.accessKeyId() should not be first.accessKeyId()
      // Whatever the provider hands out is valid for a while yet.
      (1 to 20).foreach { _ =>
        val expires = provider.resolveCredentials().expirationTime().toScala.get
        expires.isAfter(Instant.now().plusMillis(500)) shouldBe true
        Thread.sleep(100)
      }
    } finally sts.close()
  }

  test("renewal starts 5 minutes before expiry for the default one-hour session, sooner for short ones") {
    AwsCredentials.refreshTimes(3600) shouldBe ((Duration.ofMinutes(5), Duration.ofMinutes(1)))
    AwsCredentials.refreshTimes(900) shouldBe ((Duration.ofMinutes(5), Duration.ofMinutes(1)))
    AwsCredentials.refreshTimes(8) shouldBe ((Duration.ofSeconds(4), Duration.ofSeconds(2)))
  }

  test("a role STS refuses fails the Kinesis call with an access denial naming sts:AssumeRole") {
    val sts = new FakeSts()
    sts.deny = true
    try {
      val config = role(sts, "credentials-suite-4", externalId = Some("external-7"))
      // Kinesis is never reached: the credentials are needed first.
      val connection = ConnectionConfig("us-east-1", Some("http://127.0.0.1:9"), config)
      val e = intercept[KinesisConnectorException](KinesisClients.api(connection).listShards("s", 100))
      e.getCondition shouldBe "KINESIS_ACCESS_DENIED"
      e.getSqlState shouldBe "42501"
      e.getMessage should include("STS AssumeRole on role " + roleArn)
      e.getMessage should include("sts:AssumeRole")
      e.getMessage should include("external id 'external-7'")
      e.getMessage should include("AKIA…0001")
      e.getMessage should not include accessKey
      e.getMessage should not include secretKey
    } finally sts.close()
  }

  test("an STS that cannot be reached is reported as the AssumeRole call, not as Kinesis") {
    val unreachable = AssumeRole(roleArn, None, "credentials-suite-5", Some("http://127.0.0.1:9"), "us-east-1",
      StaticKeys(accessKey, secretKey, None))
    val connection = ConnectionConfig("us-east-1", Some("http://127.0.0.1:9"), unreachable)
    val e = intercept[KinesisConnectorException](KinesisClients.api(connection).listShards("s", 100))
    e.getCondition shouldBe "KINESIS_ASSUME_ROLE_FAILED"
    e.getMessage should include(s"Could not assume role $roleArn through STS (endpoint http://127.0.0.1:9, " +
      "region us-east-1), which Kinesis ListShards needs: ")
    e.getMessage should include("endpoint http://127.0.0.1:9")
  }

  test("no credentials at all is its own error, saying where credentials can come from") {
    val connection = ConnectionConfig("us-east-1", Some("http://127.0.0.1:9"),
      StaticKeys(accessKey, secretKey, None))
    val missing = software.amazon.awssdk.core.exception.SdkClientException.create(
      "Unable to load credentials from any of the providers in the chain")
    val e = AwsFailures.translate("ListShards", "stream 's'", connection, missing).get
    e.getCondition shouldBe "KINESIS_CREDENTIALS_UNAVAILABLE"
    e.getMessage should (include("awsAccessKey") and include("roleArn") and include("AWS_PROFILE"))
  }

  test("the SDK's request signers and Netty's HTTP/2 wire loggers stay quiet even when everything else logs at DEBUG") {
    import org.apache.logging.log4j.{Level, LogManager}
    import org.apache.logging.log4j.core.config.Configurator
    val root = LogManager.getRootLogger.getLevel
    Configurator.setRootLevel(Level.DEBUG)
    Configurator.setLevel("io.github.sparkkinesis", Level.DEBUG)
    try {
      SdkLogging.quietSecretLoggers()
      SdkLogging.secretLoggers.foreach { name =>
        withClue(name) { LogManager.getLogger(name + ".DefaultV4RequestSigner").isDebugEnabled shouldBe false }
      }
      SdkLogging.secretLoggers.exists(_.endsWith("http.auth.aws.internal.signer")) shouldBe true
      SdkLogging.secretLoggers.exists(_.endsWith("codec.http2.Http2FrameLogger")) shouldBe true
      SdkLogging.secretLoggers.exists(_.endsWith("handler.logging.LoggingHandler")) shouldBe true
    } finally {
      Configurator.setRootLevel(root)
      Configurator.setLevel("io.github.sparkkinesis", root)
    }
  }

  test("no config class shows a secret in toString or describe; access key ids are masked") {
    val keys = StaticKeys(accessKey, secretKey, Some(sessionToken))
    val assumed = AssumeRole(roleArn, Some("ext"), "s", None, "us-east-1", keys)
    val connection = ConnectionConfig("us-east-1", Some("http://localhost:4567"), assumed)
    Seq(keys.toString, keys.describe, assumed.toString, assumed.describe, connection.toString,
      connection.where, AwsCredentials.describeInUse(keys)).foreach { text =>
      text should not include accessKey
      text should not include secretKey
      text should not include sessionToken
    }
    keys.toString should include("AKIA…0001")
    AccessKeys.mask(accessKey) shouldBe "AKIA…0001"
    AccessKeys.mask("short") shouldBe "…"
  }
}
