// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.efo

import scala.util.Random
import scala.util.control.NonFatal

import org.apache.spark.internal.Logging

import io.github.sparkkinesis.client.{
  ConnectionConfig, ConsumerApi, ConsumerInfo, ConsumerNameTakenException, ThrottledException
}
import io.github.sparkkinesis.client.failures.RetryPolicy
import io.github.sparkkinesis.client.sdk.KinesisClients
import io.github.sparkkinesis.errors.KinesisErrors
import io.github.sparkkinesis.options.ConsumerNames
import io.github.sparkkinesis.time.{Clock, SystemClock}

/**
 * Finds or registers the enhanced fan-out consumer a reader subscribes with
 * (ARCHITECTURE.md invariant 8: consumers cost money, so one with the same name is reused).
 * Names are taken as given: the caller adds consumerNamePrefix.
 *
 * Two queries may register the same name at once; the loser's RegisterStreamConsumer fails
 * with ResourceInUse and it then waits for the winner's consumer like any other.
 *
 * @param where where requests go, for error messages (never credentials)
 */
final class ConsumerRegistry(
    api: ConsumerApi,
    where: String,
    clock: Clock = SystemClock,
    activationTimeoutMs: Long = ConsumerRegistry.DefaultActivationTimeoutMs,
    pollIntervalMs: Long = ConsumerRegistry.DefaultPollIntervalMs,
    random: Random = new Random()) extends Logging {

  private val retries = RetryPolicy.consumerManagement(pollIntervalMs)

  /**
   * The ARN of the ACTIVE consumer `name` of `stream`: the existing one, or one registered now
   * and waited for until ACTIVE (a consumer being deleted is waited out, then registered anew).
   * Fails with KINESIS_EFO_CONSUMER_NOT_ACTIVE after `activationTimeoutMs`.
   */
  def resolve(stream: String, name: String): String = {
    ConsumerNames.validate(name)
    val deadline = clock.nanoTime() + activationTimeoutMs * 1000000L
    lazy val streamArn = api.streamArn(stream)
    var lastStatus = "not registered"
    var lastThrottle: Option[ThrottledException] = None
    var throttledInARow = 0
    while (true) {
      try {
        api.describeConsumer(streamArn, name) match {
          case Some(c) if c.isActive =>
            return c.arn
          case Some(c) =>
            lastStatus = c.status
          case None =>
            try {
              val c = api.registerConsumer(streamArn, name)
              logInfo(s"Registered enhanced fan-out consumer '$name' of stream '$stream': ${c.arn}")
              lastStatus = c.status
              if (c.isActive) return c.arn
            } catch {
              case e: ConsumerNameTakenException =>
                // Registered by someone else meanwhile, or still being deleted: describe again.
                logInfo(s"Consumer '$name' of stream '$stream' is being registered or deleted elsewhere; " +
                  s"waiting for it (${e.getMessage})")
            }
        }
        throttledInARow = 0
      } catch {
        case e: ThrottledException =>
          lastThrottle = Some(e)
          throttledInARow += 1
      }
      val now = clock.nanoTime()
      if (now >= deadline) {
        lastThrottle.filter(_ => throttledInARow > 0).foreach { e =>
          if (lastStatus == "not registered") throw KinesisErrors.efoConsumerLimit(stream, name, where, e)
        }
        throw KinesisErrors.efoConsumerNotActive(stream, name, s"${activationTimeoutMs / 1000.0}s",
          lastStatus, where)
      }
      // Throttled calls back off further (the policy's doubling); others poll every pollIntervalMs.
      val waitMs = retries.backOff.delayMs(throttledInARow, random.nextDouble())
      clock.sleepNanos(math.min(waitMs * 1000000L, deadline - now))
    }
    throw new IllegalStateException("unreachable")
  }

  /**
   * `consumerArn`, a consumer registered elsewhere that `stream` is read with (the option
   * `option`), checked to exist, to be ACTIVE and to be a consumer of `stream`; never registered
   * nor waited for. Fails with KINESIS_EFO_CONSUMER_ARN_UNUSABLE.
   */
  def checkGiven(stream: String, consumerArn: String, option: String): String = {
    def unusable(reason: String) = KinesisErrors.efoConsumerArnUnusable(option, consumerArn, stream, reason, where)
    retryThrottled(api.describeConsumerArn(consumerArn)) match {
      case None => throw unusable("Kinesis has no such consumer")
      case Some((consumer, ofStream)) =>
        val streamArn = retryThrottled(api.streamArn(stream))
        if (ofStream != streamArn) throw unusable(s"it is a consumer of $ofStream, not of $streamArn")
        if (!consumer.isActive) throw unusable(s"its status is ${consumer.status}, not ACTIVE")
        consumer.arn
    }
  }

  /** Deregisters `name` of `stream`; false if there was no such consumer. Failures propagate. */
  def deregister(stream: String, name: String): Boolean = {
    ConsumerNames.validate(name)
    val removed = retryThrottled(api.deregisterConsumer(retryThrottled(api.streamArn(stream)), name))
    if (removed) logInfo(s"Deregistering enhanced fan-out consumer '$name' of stream '$stream'")
    removed
  }

  /**
   * Deregistration on query stop (requireConsumerDeregistration): best effort, as it may run
   * while the cluster shuts down. Never throws; says in the log what happened.
   */
  def deregisterQuietly(stream: String, name: String): Unit =
    try {
      if (!deregister(stream, name)) {
        logInfo(s"Enhanced fan-out consumer '$name' of stream '$stream' was already deregistered")
      }
    } catch {
      case NonFatal(e) =>
        logWarning(
          s"Could not deregister enhanced fan-out consumer '$name' of stream '$stream' " +
            s"($where); it keeps costing money until it is deregistered, e.g. with " +
            s"AWSKinesisConsumerManager.deregisterConsumer: ${e.getMessage}", e)
    }

  def list(stream: String): Seq[ConsumerInfo] =
    retryThrottled(api.listConsumers(retryThrottled(api.streamArn(stream))))

  /** Runs a call, retrying it with the consumer-management back-off while Kinesis throttles it. */
  private def retryThrottled[T](body: => T): T =
    retries.run("A consumer call", sleepMs = ms => clock.sleepNanos(ms * 1000000L), random = () => random.nextDouble())(
      body)
}

object ConsumerRegistry {
  /** Kinesis activates a consumer within seconds; minutes mean something is wrong. */
  val DefaultActivationTimeoutMs: Long = 120000L
  val DefaultPollIntervalMs: Long = 500L

  def apply(connection: ConnectionConfig): ConsumerRegistry =
    new ConsumerRegistry(KinesisClients.consumerApi(connection), connection.where)
}
