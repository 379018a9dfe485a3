// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.sdk

import software.amazon.awssdk.core.exception.{SdkClientException, SdkException}
import software.amazon.awssdk.services.kinesis.model.{
  ExpiredIteratorException, LimitExceededException, ProvisionedThroughputExceededException, ResourceInUseException,
  ResourceNotFoundException
}

import io.github.sparkkinesis.errors.KinesisErrors
import io.github.sparkkinesis.client.{
  ConnectionConfig, IteratorExpiredException, RecordWithoutField, ThrottledException
}
import io.github.sparkkinesis.client.failures.{AwsFailures, CredentialsInErrors}

/**
 * The one translation of a failed synchronous SDK call into what the connector acts on, for
 * every Kinesis API the connector calls:
 *  - throttling becomes a [[ThrottledException]] and an expired iterator an
 *    [[IteratorExpiredException]], which the callers retry ([[RetryPolicy]]);
 *  - a call cut short by its thread's interruption (the query stopping, a task killed) is
 *    rethrown as an [[InterruptedException]], so Spark ends the query cleanly (a read time-out
 *    is not an interruption: it is an endpoint that does not answer);
 *  - a missing stream becomes KINESIS_STREAM_NOT_FOUND;
 *  - credentials, permissions, TLS, unreachable or non-Kinesis endpoints become their own
 *    errors, anything else KINESIS_API_FAILED ([[AwsFailures]]).
 * Every exception it throws quotes the SDK's only with the connection's credentials masked.
 */
private[client] object SdkCalls {

  /**
   * Runs `body`, the SDK call `operation` (as the API names it) on `target` (for messages),
   * about `stream` when it names one.
   *
   * @param passThrough ResourceNotFound and ResourceInUse are rethrown as they are, for the
   *                    caller to interpret (a consumer that does not exist, or is taken)
   */
  def apply[T](operation: String, target: String, stream: Option[String], connection: ConnectionConfig,
      passThrough: Boolean = false)(body: => T): T =
    try body
    catch {
      case e @ (_: ProvisionedThroughputExceededException | _: LimitExceededException) =>
        val clean = shown(e, connection)
        throw new ThrottledException(s"$operation on $target was throttled: ${clean.getMessage}", clean)
      case e: ExpiredIteratorException =>
        val clean = shown(e, connection)
        throw new IteratorExpiredException(s"$operation: ${clean.getMessage}", clean)
      case e: SdkException if AwsFailures.interrupted(e) =>
        throw new InterruptedException(s"$operation on $target was interrupted")
      case e: ResourceNotFoundException if stream.isDefined =>
        throw KinesisErrors.streamNotFound(stream.get, connection.where, shown(e, connection))
      case e @ (_: ResourceNotFoundException | _: ResourceInUseException) if passThrough => throw e
      case e: SdkException =>
        throw AwsFailures.toConnectorError(operation, target, connection, e)
      case e: RecordWithoutField => // as an answer the SDK cannot read
        throw AwsFailures.toConnectorError(operation, target, connection, SdkClientException.create(e.getMessage, e))
    }

  /** `e` as the connector may show it: every credential of the connection it repeats masked. */
  def shown(e: Throwable, connection: ConnectionConfig): Throwable =
    CredentialsInErrors.sanitize(e, connection.credentials)
}
