// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.failures

import javax.net.ssl.SSLHandshakeException

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers
import software.amazon.awssdk.awscore.exception.AwsErrorDetails
import software.amazon.awssdk.core.SdkBytes
import software.amazon.awssdk.core.exception.{AbortedException, SdkClientException}
import software.amazon.awssdk.services.kinesis.KinesisClient
import software.amazon.awssdk.services.kinesis.model._
import software.amazon.awssdk.services.sts.model.StsException

import io.github.sparkkinesis.errors.KinesisConnectorException
import io.github.sparkkinesis.offsets.ShardPosition
import io.github.sparkkinesis.client.{ConnectionConfig, CredentialsConfig, KinesisApi}
import io.github.sparkkinesis.client.sdk.{KinesisClients, SdkKinesisApi}

/** How failed AWS calls become errors: permissions, credentials, TLS (no network involved). */
class AwsFailuresSuite extends AnyFunSuite with Matchers {

  private val accessKey = "AKIAFAILURESUITE0042"
  private val secretKey = "failureSuiteSecret/abcdefghijklmnopqrs"
  private val keys = CredentialsConfig.StaticKeys(accessKey, secretKey, None)
  private val connection = ConnectionConfig("eu-west-1", None, keys)

  private def kinesisError(code: String, status: Int, message: String): KinesisException =
    KinesisException.builder().statusCode(status).message(message)
      .awsErrorDetails(AwsErrorDetails.builder().errorCode(code).errorMessage(message).serviceName("Kinesis").build())
      .build().asInstanceOf[KinesisException]

  /** A Kinesis client whose every call fails with `e`, behind the real [[SdkKinesisApi]]. */
  private def failingApi(e: Throwable, config: ConnectionConfig = connection): KinesisApi = {
    val failing = new KinesisClient {
      override def serviceName(): String = "kinesis"
      override def close(): Unit = ()
      override def listShards(r: ListShardsRequest): ListShardsResponse = throw e
      override def getShardIterator(r: GetShardIteratorRequest): GetShardIteratorResponse = throw e
      override def getRecords(r: GetRecordsRequest): GetRecordsResponse = throw e
    }
    new SdkKinesisApi(() => failing, config, () => failing)
  }

  private def everyCall(api: KinesisApi): Seq[(String, KinesisConnectorException)] = Seq(
    "ListShards" -> intercept[KinesisConnectorException](api.listShards("orders", 100)),
    "GetShardIterator" -> intercept[KinesisConnectorException](
      api.shardIterator("orders", "shardId-000000000000", ShardPosition.TrimHorizon)),
    "GetRecords" -> intercept[KinesisConnectorException](api.getRecords("orders", "iterator", 100, None)))

  private def noSecrets(e: Throwable): Unit = {
    val shown = Iterator.iterate(e)(_.getCause).takeWhile(_ != null).map(c => s"$c ${c.getMessage}").mkString("\n")
    shown should not include secretKey
    e.getMessage should not include accessKey
  }

  test("AccessDeniedException names the API call and the IAM permission it needs") {
    val denied = kinesisError("AccessDeniedException", 400,
      "User: arn:aws:iam::123456789012:user/reader is not authorized to perform: kinesis:ListShards")
    everyCall(failingApi(denied)).foreach { case (operation, e) =>
      withClue(operation) {
        e.getCondition shouldBe "KINESIS_ACCESS_DENIED"
        e.getSqlState shouldBe "42501"
        e.getMessage should include(s"Kinesis $operation on ")
        e.getMessage should include(s"IAM permission kinesis:$operation")
        e.getMessage should include("AKIA…0042 from the options awsAccessKey/awsSecretKey")
        e.getMessage should include("region eu-west-1")
        e.getMessage should include("is not authorized to perform")
        noSecrets(e)
      }
    }
  }

  test("reading an encrypted stream also needs kms:Decrypt, which the message says") {
    val denied = kinesisError("AccessDeniedException", 400, "denied")
    intercept[KinesisConnectorException](failingApi(denied).getRecords("orders", "it", 1, None))
      .getMessage should include("kms:Decrypt")
  }

  test("the permission of every call the sink and the consumer manager make is named as well") {
    Seq("PutRecords", "PutRecord", "SubscribeToShard", "RegisterStreamConsumer", "DescribeStreamConsumer",
      "DeregisterStreamConsumer", "ListStreamConsumers", "DescribeStreamSummary").foreach { operation =>
      val e = AwsFailures.translate(operation, "stream 'orders'", connection,
        kinesisError("AccessDeniedException", 400, "denied")).get
      e.getCondition shouldBe "KINESIS_ACCESS_DENIED"
      e.getMessage should include(s"kinesis:$operation")
    }
    AwsFailures.translate("PutRecords", "stream 'orders'", connection,
      kinesisError("AccessDeniedException", 400, "denied")).get.getMessage should include("kms:GenerateDataKey")
  }

  test("rejected credentials say which access key was used, masked, never the secret") {
    Seq("UnrecognizedClientException" -> "The security token included in the request is invalid.",
      "InvalidSignatureException" -> "The request signature we calculated does not match the signature you provided.",
      "ExpiredTokenException" -> "The security token included in the request is expired")
      .foreach { case (code, message) =>
        everyCall(failingApi(kinesisError(code, 400, message))).foreach { case (operation, e) =>
          withClue(s"$code $operation") {
            e.getCondition shouldBe "KINESIS_AUTHENTICATION_FAILED"
            e.getSqlState shouldBe "28000"
            e.getMessage should include(s"Kinesis rejected the credentials of $operation")
            e.getMessage should include(code)
            e.getMessage should include("AKIA…0042")
            noSecrets(e)
          }
        }
      }
  }

  test("a 403 whose code is only in an XML body (a proxy, moto) is still understood") {
    def forbidden(body: String) = KinesisException.builder().statusCode(403)
      .awsErrorDetails(AwsErrorDetails.builder().rawResponse(SdkBytes.fromUtf8String(body)).build())
      .message("Service returned HTTP status code 403").build()
    val badKey = forbidden("<ErrorResponse><Error><Code>InvalidClientTokenId</Code>" +
      "<Message>The security token included in the request is invalid.</Message></Error></ErrorResponse>")
    val e = intercept[KinesisConnectorException](failingApi(badKey).listShards("orders", 10))
    e.getCondition shouldBe "KINESIS_AUTHENTICATION_FAILED"
    e.getMessage should include("InvalidClientTokenId: The security token included in the request is invalid.")

    val denied = forbidden("<ErrorResponse><Error><Code>AccessDenied</Code><Message>User: x is not authorized" +
      "</Message></Error></ErrorResponse>")
    intercept[KinesisConnectorException](failingApi(denied).listShards("orders", 10))
      .getCondition shouldBe "KINESIS_ACCESS_DENIED"

    val bare = forbidden("Forbidden")
    intercept[KinesisConnectorException](failingApi(bare).listShards("orders", 10))
      .getCondition shouldBe "KINESIS_AUTHENTICATION_FAILED"
  }

  test("an AWS message that repeats the credentials has them masked, in the cause chain as well") {
    val token = "FailureSuiteSessionToken+xyzxyzxyz"
    val withToken = connection.copy(credentials = keys.copy(sessionToken = Some(token)))
    // InvalidSignatureException quotes the canonical request, signed token header included.
    val echo = kinesisError("InvalidSignatureException", 400,
      s"The Canonical String for this request should have been 'x-amz-security-token:$token' key $accessKey " +
        s"secret $secretKey")
    val wrapped = SdkClientException.create(s"outer $secretKey", echo)
    wrapped.addSuppressed(SdkClientException.create(s"Request attempt 1 failure: $token"))
    Seq(echo, wrapped).foreach { failure =>
      val e = intercept[KinesisConnectorException](failingApi(failure, withToken).listShards("orders", 10))
      e.getCondition shouldBe "KINESIS_AUTHENTICATION_FAILED"
      val shown = Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null)
        .flatMap(c => Seq(c) ++ c.getSuppressed).map(c => s"$c ${c.getMessage}").mkString("\n")
      shown should not include secretKey
      shown should not include token
      shown should not include accessKey
      shown should include("InvalidSignatureException")
      e.getMessage should include("key AKIA…0042 secret <redacted>")
    }
    // Failures that do not repeat a credential keep their own exception.
    val plain = kinesisError("InternalFailure", 500, "boom")
    intercept[KinesisConnectorException](failingApi(plain).listShards("orders",
        10)).getCause should be theSameInstanceAs plain
  }

  test("SubscribeToShard, throttled and not-found failures show the credentials masked as well") {
    val token = "FailureSuiteSessionToken+xyzxyzxyz"
    val withToken = connection.copy(credentials = keys.copy(sessionToken = Some(token)))
    val quote = s"'x-amz-security-token:$token' key $accessKey secret $secretKey"
    val shown = KinesisClients.transport(withToken).shown(SdkClientException.create(s"signature: $quote"))
    Seq(s"$shown ${shown.getMessage}",
      String.valueOf(intercept[Throwable](failingApi(LimitExceededException.builder().message(quote).build(), withToken)
            .listShards("orders", 10)).getCause),
      String.valueOf(intercept[Throwable](failingApi(ResourceNotFoundException.builder().message(quote).build(),
            withToken)
            .listShards("orders", 10)).getCause)).foreach { text =>
      text should not include token
      text should not include secretKey
      text should not include accessKey
    }
  }

  test("other service errors stay KINESIS_API_FAILED; not found stays KINESIS_STREAM_NOT_FOUND") {
    intercept[KinesisConnectorException](
      failingApi(kinesisError("InternalFailure", 500, "boom")).listShards("orders", 10))
      .getCondition shouldBe "KINESIS_API_FAILED"
    val notFound = ResourceNotFoundException.builder().message("Stream orders not found").build()
    intercept[KinesisConnectorException](failingApi(notFound).listShards("orders", 10))
      .getCondition shouldBe "KINESIS_STREAM_NOT_FOUND"
    // A stream deleted while its shards are read: GetRecords names it too.
    intercept[KinesisConnectorException](failingApi(notFound).getRecords("orders", "iterator", 10, None))
      .getCondition shouldBe "KINESIS_STREAM_NOT_FOUND"
  }

  test("an endpoint that answers without any AWS error code is named as not Kinesis, with what it said") {
    val page = KinesisException.builder().statusCode(404).message("Service returned HTTP status code 404")
      .awsErrorDetails(AwsErrorDetails.builder().rawResponse(SdkBytes.fromUtf8String(
            "<html>\n  <body><h1>404 Not Found</h1></body>\n</html>")).build()).build()
    val local = connection.copy(endpoint = Some("http://127.0.0.1:8080"))
    val e = intercept[KinesisConnectorException](failingApi(page, local).listShards("orders", 10))
    e.getCondition shouldBe "KINESIS_ENDPOINT_NOT_KINESIS"
    e.getMessage should include("http://127.0.0.1:8080 answered Kinesis ListShards on stream 'orders' with HTTP 404")
    e.getMessage should include("it answered: <html> <body><h1>404 Not Found</h1></body> </html>")
    // A gateway's passing 5xx without a code stays a retryable API failure.
    val gateway = KinesisException.builder().statusCode(502).message("Bad Gateway").build()
    intercept[KinesisConnectorException](failingApi(gateway, local).listShards("orders", 10))
      .getCondition shouldBe "KINESIS_API_FAILED"
  }

  test("an endpoint where nothing answers is named as such, and is retryable") {
    val refused = SdkClientException.create("Unable to execute HTTP request: Connection refused",
      new java.net.ConnectException("Connection refused"))
    val e = intercept[KinesisConnectorException](failingApi(refused).listShards("orders", 10))
    e.getCondition shouldBe "KINESIS_ENDPOINT_UNREACHABLE"
    e.getMessage should include("Kinesis ListShards on stream 'orders' got no answer from the Kinesis endpoint " +
      "of eu-west-1: ConnectException: Connection refused")
    io.github.sparkkinesis.errors.KinesisErrors.isRetryable(e) shouldBe true
    val unknownHost = SdkClientException.create("Unable to execute HTTP request: nowhere.invalid",
      new java.net.UnknownHostException("nowhere.invalid"))
    intercept[KinesisConnectorException](failingApi(unknownHost).listShards("orders", 10))
      .getCondition shouldBe "KINESIS_ENDPOINT_UNREACHABLE"
    val silent = SdkClientException.create("Unable to execute HTTP request: Read timed out",
      new java.net.SocketTimeoutException("Read timed out"))
    intercept[KinesisConnectorException](failingApi(silent).listShards("orders", 10)).getMessage should include(
      "got no answer from the Kinesis endpoint of eu-west-1: SocketTimeoutException: Read timed out")
  }

  test("STS refusing the role, wherever it sits in the cause chain, is an sts:AssumeRole denial") {
    val role = CredentialsConfig.AssumeRole("arn:aws:iam::123456789012:role/reader", Some("ext-9"), "spark",
      Some("https://sts.eu-west-1.amazonaws.com"), "eu-west-1", keys)
    val stsDenied = StsException.builder().statusCode(403)
      .awsErrorDetails(AwsErrorDetails.builder().errorCode("AccessDenied").errorMessage("not authorized").build())
      .build()
    val wrapped = SdkClientException.create("Unable to load credentials", stsDenied)
    val e = intercept[KinesisConnectorException](
      failingApi(wrapped, connection.copy(credentials = role)).listShards("orders", 10))
    e.getCondition shouldBe "KINESIS_ACCESS_DENIED"
    e.getMessage should include("STS AssumeRole on role arn:aws:iam::123456789012:role/reader with external id 'ext-9'")
    e.getMessage should include("sts:AssumeRole")
    e.getMessage should include("endpoint https://sts.eu-west-1.amazonaws.com")
    e.getMessage should include("AKIA…0042")
    noSecrets(e)

    val stsBadKey = StsException.builder().statusCode(403)
      .awsErrorDetails(AwsErrorDetails.builder().errorCode("InvalidClientTokenId").errorMessage("invalid").build())
      .build()
    val auth = intercept[KinesisConnectorException](
      failingApi(stsBadKey, connection.copy(credentials = role)).listShards("orders", 10))
    auth.getCondition shouldBe "KINESIS_AUTHENTICATION_FAILED"
    auth.getMessage should include("STS rejected the credentials of AssumeRole")
  }

  test("an untrusted certificate says how to trust it, and that checks cannot be turned off") {
    val tls = SdkClientException.create("Unable to execute HTTP request: PKIX path building failed",
      new SSLHandshakeException("PKIX path building failed: unable to find valid certification path"))
    val e = intercept[KinesisConnectorException](
      failingApi(tls, connection.copy(endpoint = Some("https://127.0.0.1:4567"))).listShards("orders", 10))
    e.getCondition shouldBe "KINESIS_TLS_UNTRUSTED"
    e.getMessage should include("https://127.0.0.1:4567")
    e.getMessage should include("PKIX path building failed")
    e.getMessage should include("javax.net.ssl.trustStore")
    e.getMessage should include("always verified")
  }

  test("a call cut short by its thread's interruption is told apart from a failure") {
    assert(AwsFailures.interrupted(AbortedException.create("Thread was interrupted")))
    assert(AwsFailures.interrupted(SdkClientException.create("read",
          new java.io.InterruptedIOException("interrupted"))))
    assert(!AwsFailures.interrupted(SdkClientException.create("reset",
          new java.net.SocketException("Connection reset"))))
    assert(!AwsFailures.interrupted(SdkClientException.create("slow",
          new java.net.SocketTimeoutException("Read timed out"))))
  }
}
