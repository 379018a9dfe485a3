// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.failures

import java.net.{SocketException, SocketTimeoutException}
import java.util.concurrent.CompletionException
import javax.net.ssl.SSLHandshakeException

import scala.collection.mutable

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers
import software.amazon.awssdk.awscore.exception.AwsErrorDetails
import software.amazon.awssdk.core.exception.{AbortedException, SdkClientException}
import software.amazon.awssdk.services.kinesis.model.{
  AccessDeniedException, ExpiredIteratorException, InternalFailureException, InvalidArgumentException, KinesisException,
  LimitExceededException, ProvisionedThroughputExceededException, ResourceInUseException, ResourceNotFoundException
}
import io.github.sparkkinesis.client.ThrottledException

class RetryPolicySuite extends AnyFunSuite with Matchers {

  private def throttledTimes(n: Int): (() => String, () => Int) = {
    var calls = 0
    (() => {
        calls += 1
        if (calls <= n) throw new ThrottledException(s"throttled $calls", null)
        "listed"
      }, () => calls)
  }

  test("the back-off doubles up to its longest wait, and jitter stays within half of it") {
    val backOff = BackOff(100L, 2000L)
    (0 until 7).map(backOff.delayMs(_, 0.0)) shouldBe Seq(50L, 100L, 200L, 400L, 800L, 1000L, 1000L)
    (0 until 7).map(backOff.delayMs(_, 0.999999)) shouldBe Seq(99L, 199L, 399L, 799L, 1599L, 1999L, 1999L)
    val random = new scala.util.Random(7)
    for (retry <- 0 until 50) {
      val cap = math.min(2000L, 100L << math.min(retry, 20))
      backOff.delayMs(retry, random.nextDouble()) should (be >= cap / 2 and be <= cap)
    }
    BackOff(100L, 2000L).delayMs(10000, 0.5) shouldBe 1500L // no overflow on long failure runs
  }

  test("a throttled call is tried again after the jittered back-off, until it succeeds") {
    val waits = mutable.Buffer.empty[Long]
    val (call, calls) = throttledTimes(6)
    RetryPolicy.ListShards.run("ListShards", sleepMs = waits += _, random = () => 0.0)(call()) shouldBe "listed"
    calls() shouldBe 7
    waits shouldBe Seq(50L, 100L, 200L, 400L, 800L, 1000L)
  }

  test("the budget is the policy's number of attempts; then the last failure goes to the caller") {
    for (policy <- Seq(RetryPolicy.ListShards, RetryPolicy(3, BackOff(1L, 1L)))) {
      val (call, calls) = throttledTimes(100)
      val e = intercept[ThrottledException](policy.run("ListShards", sleepMs = _ => ())(call()))
      calls() shouldBe policy.maxAttempts
      e.getMessage shouldBe s"throttled ${policy.maxAttempts}"
    }
  }

  test("failures the policy's test refuses are not retried") {
    var calls = 0
    intercept[IllegalStateException](RetryPolicy.ListShards.run("ListShards", sleepMs = _ => ()) {
      calls += 1
      throw new IllegalStateException("no")
    })
    calls shouldBe 1
  }

  test("per-call budgets: each kind of call has its own numbers") {
    RetryPolicy.ListShards shouldBe RetryPolicy(8, BackOff(100L, 2000L))
    RetryPolicy.GetRecordsThrottled shouldBe RetryPolicy(11, BackOff(1000L, 10000L))
    RetryPolicy.SubscribeToShard shouldBe RetryPolicy(10, BackOff(1000L, 30000L))
    RetryPolicy.consumerManagement(500L) shouldBe RetryPolicy(9, BackOff(500L, 16000L))
    RetryPolicy.putRecords(3, 100L, 1000L) shouldBe RetryPolicy(4, BackOff(100L, 1000L))
  }

  private def serviceError(status: Int, code: String) =
    KinesisException.builder().statusCode(status)
      .awsErrorDetails(AwsErrorDetails.builder().errorCode(code).errorMessage(code).build()).build()

  test("retryable: throttling, resources in use, Kinesis' own failures and network trouble") {
    Retryable(ProvisionedThroughputExceededException.builder().statusCode(400).build()) shouldBe true
    Retryable(new CompletionException(LimitExceededException.builder().build())) shouldBe true
    Retryable(new ThrottledException("ListShards was throttled", null)) shouldBe true
    Retryable(serviceError(400, "ThrottlingException")) shouldBe true
    Retryable(ResourceInUseException.builder().build()) shouldBe true
    Retryable(InternalFailureException.builder().statusCode(500).build()) shouldBe true
    Retryable(serviceError(503, "ServiceUnavailable")) shouldBe true
    Retryable(SdkClientException.create("reset", new SocketException("Connection reset"))) shouldBe true
    Retryable(SdkClientException.create("Read timed out", new SocketTimeoutException())) shouldBe true
  }

  test("not retryable: interruptions, missing resources, bad arguments, denied access, untrusted certificates") {
    Retryable(AbortedException.create("interrupted")) shouldBe false
    Retryable(SdkClientException.create("x", new InterruptedException())) shouldBe false
    Retryable(ResourceNotFoundException.builder().statusCode(400).build()) shouldBe false
    Retryable(InvalidArgumentException.builder().statusCode(400).build()) shouldBe false
    Retryable(ExpiredIteratorException.builder().statusCode(400).build()) shouldBe false
    Retryable(AccessDeniedException.builder().statusCode(400).build()) shouldBe false
    Retryable(serviceError(400, "UnrecognizedClientException")) shouldBe false
    Retryable(SdkClientException.create("handshake",
        new SSLHandshakeException("PKIX path building failed"))) shouldBe false
    Retryable(SdkClientException.create("Unable to load credentials from any of the providers")) shouldBe false
    Retryable(new IllegalStateException("a bug")) shouldBe false
  }

  test("throttling is told apart from other retryable failures, and PutRecords entry codes follow the same split") {
    Retryable.throttling(serviceError(400, "ThrottlingException")) shouldBe true
    Retryable.throttling(LimitExceededException.builder().build()) shouldBe true
    Retryable.throttling(serviceError(503, "ServiceUnavailable")) shouldBe false
    Retryable.entryCode("ProvisionedThroughputExceededException") shouldBe true
    Retryable.entryCode("InternalFailure") shouldBe true
    Retryable.entryCode("AccessDeniedException") shouldBe false
    Retryable.entryCode("KMSNotFoundException") shouldBe false
  }
}
