// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import org.apache.spark.SparkContext
import org.apache.spark.internal.Logging

import io.github.sparkkinesis.efo.ConsumerRegistry
import io.github.sparkkinesis.options.{EfoSettings, KinesisOptions, KinesisSourceOptions}
import io.github.sparkkinesis.time.{Clock, SystemClock}

/**
 * The enhanced fan-out consumer of each stream a query reads (ARCHITECTURE.md invariant 8): reused
 * when registered under its name, else registered and awaited until ACTIVE; checked again
 * every `consumerRefreshInterval`, and at once when a subscription found it gone, so a consumer
 * deregistered behind the query's back is registered again; deregistered on stop when
 * `requireConsumerDeregistration` is true. Consumers given by ARN (`consumerARN`) are only
 * checked, when due: never registered, never deregistered. When a check is due is told by `clock`.
 */
final class EfoConsumers(
    options: KinesisSourceOptions,
    efo: EfoSettings,
    sparkContext: => SparkContext,
    name: String,
    clock: Clock = SystemClock,
    registryOf: KinesisSourceOptions => ConsumerRegistry = o => ConsumerRegistry(o.connection))
  extends Logging {

  private var consumers = Map.empty[String, String] // stream -> consumer name
  private var arns = Map.empty[String, String] // stream -> consumer ARN
  private var checkedNanos = Long.MinValue

  /** The consumer ARN of each stream, registering or checking them when due, or now when `force`d. */
  def resolve(force: Boolean = false): Map[String, String] = {
    val due = force || checkedNanos == Long.MinValue ||
      clock.nanoTime() - checkedNanos >= efo.refreshIntervalMs * 1000000L
    if (due) {
      lazy val queryId = Option(sparkContext.getLocalProperty("sql.streaming.queryId"))
        .getOrElse(java.util.UUID.randomUUID().toString)
      val registry = registryOf(options)
      if (efo.givenArns.nonEmpty) {
        val option = options.givenName(KinesisOptions.ConsumerARN).getOrElse(KinesisOptions.ConsumerARN.name)
        arns = efo.givenArns.map { case (stream, arn) => stream -> registry.checkGiven(stream, arn, option) }
      } else {
        if (consumers.isEmpty) consumers = options.streamNames.map(s => s -> efo.consumerName(s, queryId)).toMap
        arns = consumers.map { case (stream, consumer) => stream -> registry.resolve(stream, consumer) }
      }
      if (checkedNanos == Long.MinValue) logInfo(s"$name reads through enhanced fan-out consumers $arns")
      checkedNanos = clock.nanoTime()
    }
    arns
  }

  /** The query stopped: deregister its consumers if asked to. */
  def stop(): Unit = if (efo.requireDeregistration) {
    consumers.foreach { case (stream, consumer) =>
      registryOf(options).deregisterQuietly(stream, consumer)
    }
  }
}
