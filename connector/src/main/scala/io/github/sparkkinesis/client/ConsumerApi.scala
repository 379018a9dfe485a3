// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client

import java.time.Instant

/** An enhanced fan-out consumer as Kinesis describes it. `status` is CREATING, ACTIVE or DELETING. */
final case class ConsumerInfo(name: String, arn: String, status: String, creationTimestamp: Instant) {
  def isActive: Boolean = status == ConsumerInfo.Active
}

object ConsumerInfo {
  val Active = "ACTIVE"
  val Creating = "CREATING"
  val Deleting = "DELETING"
}

/**
 * The control-plane calls of enhanced fan-out. The registry and the consumer manager talk to
 * Kinesis only through this trait, so unit tests put a fake behind it.
 */
trait ConsumerApi {
  /** The ARN of a stream; consumers are registered against it. */
  def streamArn(stream: String): String

  def describeConsumer(streamArn: String, name: String): Option[ConsumerInfo]

  /** The consumer of that ARN and the ARN of its stream; None if there is none. */
  def describeConsumerArn(consumerArn: String): Option[(ConsumerInfo, String)]

  /** Registers a consumer (status CREATING); [[ConsumerNameTakenException]] if the name is taken. */
  def registerConsumer(streamArn: String, name: String): ConsumerInfo

  /** Starts deregistering a consumer; false if there is none of that name. */
  def deregisterConsumer(streamArn: String, name: String): Boolean

  def listConsumers(streamArn: String): Seq[ConsumerInfo]
}

/**
 * RegisterStreamConsumer refused the name: a consumer of that name exists, perhaps registered a
 * moment ago by another query, or is still being deleted.
 */
final class ConsumerNameTakenException(message: String, cause: Throwable) extends RuntimeException(message, cause)
