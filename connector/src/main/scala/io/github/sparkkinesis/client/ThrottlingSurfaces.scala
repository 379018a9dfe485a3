package io.github.sparkkinesis.client

import java.io.IOException

import software.amazon.awssdk.core.SdkPlugin
import software.amazon.awssdk.core.exception.{SdkClientException, SdkException, SdkServiceException}
import software.amazon.awssdk.core.retry.RetryUtils
import software.amazon.awssdk.retries.DefaultRetryStrategy
import software.amazon.awssdk.retries.api.RetryStrategy
import software.amazon.awssdk.services.kinesis.model.{LimitExceededException, ProvisionedThroughputExceededException}

/**
 * A per-request plugin for GetRecords: the SDK retries failed calls as usual, except when
 * Kinesis throttles. Then the call fails at once, so the shard's cursor sees it: it halves
 * what it asks for, backs off, logs `Hit rate limit` and counts it in `throttleEvents`
 * (ARCHITECTURE.md invariant 4). With the SDK's own throttling retries the cursor rarely
 * saw one, and each hidden retry was one more call against the shard's 5 calls a second.
 */
private[client] object ThrottlingSurfaces {

  val strategy: RetryStrategy = DefaultRetryStrategy.standardStrategyBuilder()
    .useClientDefaults(false) // the client's defaults would add its throttling conditions back
    .retryOnException((t: Throwable) => retryable(t))
    .build()

  val plugin: SdkPlugin = config =>
    config.overrideConfiguration(config.overrideConfiguration().toBuilder.retryStrategy(strategy).build())

  /** 5xx answers, clock skew and I/O failures (resets, time-outs) are retried; throttling is not. */
  def retryable(t: Throwable): Boolean = t match {
    case _: ProvisionedThroughputExceededException | _: LimitExceededException => false
    case e: SdkException if RetryUtils.isThrottlingException(e) => false
    case e: SdkClientException => e.retryable() || causedByIO(e)
    case e: SdkServiceException =>
      e.statusCode() >= 500 || e.retryable() || RetryUtils.isRetryableException(e) || RetryUtils.isClockSkewException(e)
    case _ => false
  }

  private def causedByIO(t: Throwable): Boolean =
    Iterator.iterate(t)(_.getCause).takeWhile(_ != null).take(10).exists(_.isInstanceOf[IOException])
}
