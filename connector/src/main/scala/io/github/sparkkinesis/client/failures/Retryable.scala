// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.failures

import java.io.IOException
import java.security.cert.CertificateException
import java.util.concurrent.TimeoutException
import javax.net.ssl.SSLException

import software.amazon.awssdk.awscore.exception.AwsServiceException
import software.amazon.awssdk.core.exception.{SdkClientException, SdkException, SdkServiceException}
import software.amazon.awssdk.core.retry.RetryUtils
import software.amazon.awssdk.services.kinesis.model.{
  InternalFailureException, KinesisException, LimitExceededException, ProvisionedThroughputExceededException,
  ResourceInUseException, ResourceNotFoundException
}

import io.github.sparkkinesis.errors.CauseChain
import io.github.sparkkinesis.client.ThrottledException

/**
 * The one definition of which failed Kinesis calls are worth another try, for every retry in
 * the connector (the SDK's own, and the connector's loops around GetRecords, ListShards,
 * SubscribeToShard, consumer management and PutRecords).
 *
 * Worth another try: throttling, a resource still in use (a subscription held for 5 more
 * seconds, a consumer being created), Kinesis' own failures (5xx), and network trouble (resets,
 * time-outs). Not: an interruption (the query is stopping), a missing stream, shard or consumer,
 * bad arguments, denied access, rejected credentials, and untrusted certificates.
 */
object Retryable {

  /** PutRecords entry codes for going over a limit: retried, and counted as throttled. */
  val ThrottlingCodes: Set[String] = Set("ProvisionedThroughputExceededException", "LimitExceededException",
    "KMSThrottlingException", "ThrottlingException")

  /** PutRecords entry codes that will not change on a retry. Any other code is retried. */
  val FinalCodes: Set[String] = Set("InvalidArgumentException", "ValidationException", "AccessDeniedException",
    "ResourceNotFoundException", "KMSDisabledException", "KMSInvalidStateException", "KMSAccessDeniedException",
    "KMSNotFoundException", "KMSOptInRequired")

  /** Whether a failed call (or a failure anywhere in its causes) is worth another try. */
  def apply(failure: Throwable): Boolean = {
    val chain = causes(failure)
    if (AwsFailures.interrupted(failure)) false
    else if (chain.exists(c => c.isInstanceOf[SSLException] || c.isInstanceOf[CertificateException])) false
    else if (chain.exists(_.isInstanceOf[ThrottledException])) true
    else chain.collectFirst { case s: SdkServiceException => s } match {
      case Some(_: ResourceInUseException | _: LimitExceededException | _: InternalFailureException |
            _: ProvisionedThroughputExceededException) => true
      case Some(s) => throttling(s) || s.statusCode() >= 500 || RetryUtils.isClockSkewException(s) ||
        (!s.isInstanceOf[KinesisException] && s.retryable())
      case None => chain.exists {
          case c: SdkClientException => c.retryable() || causes(c).exists(_.isInstanceOf[IOException])
          case _: IOException | _: TimeoutException => true
          case _ => false
        }
    }
  }

  /** Whether Kinesis refused a call for going over a rate limit. */
  def throttling(failure: Throwable): Boolean = causes(failure).exists {
    case _: ThrottledException | _: ProvisionedThroughputExceededException | _: LimitExceededException => true
    case e: SdkException => RetryUtils.isThrottlingException(e)
    case _ => false
  }

  /** Whether Kinesis refused a call because the resource is in use (a subscription still held). */
  def resourceInUse(failure: Throwable): Boolean = causes(failure).exists(_.isInstanceOf[ResourceInUseException])

  /**
   * Whether Kinesis refused a call's credentials as expired: a call signed just before its
   * credentials were renewed that reached Kinesis after they expired.
   */
  def expiredCredentials(failure: Throwable): Boolean = causes(failure).exists {
    case e: AwsServiceException =>
      Option(e.awsErrorDetails()).exists(d => AwsFailures.ExpiredTokenCodes(d.errorCode()))
    case _ => false
  }

  /** Whether Kinesis refused a call because what it names does not exist (a consumer deregistered meanwhile). */
  def resourceNotFound(failure: Throwable): Boolean =
    causes(failure).exists(_.isInstanceOf[ResourceNotFoundException])

  /** Whether a PutRecords entry refused with `code` is worth sending again. */
  def entryCode(code: String): Boolean = !FinalCodes.contains(code)

  private def causes(e: Throwable): Seq[Throwable] =
    CauseChain.of(e)
}
