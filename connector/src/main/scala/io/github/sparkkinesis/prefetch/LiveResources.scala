// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.client.credentials.AwsCredentials
import io.github.sparkkinesis.client.sdk.KinesisClients
import io.github.sparkkinesis.efo.{SubscribeLimiter, SubscriptionCursor}

/**
 * What the connector holds open in this JVM, counted, so a test (or a user wondering) can check
 * that a stopped query left nothing behind: SDK clients, credentials providers, readers kept
 * between tasks, open EFO subscriptions, subscribe limiter turns still in force (5 s each), and
 * the threads named after a query. Once every query, sink and read of the JVM ended, each
 * count is 0 (the limiter's within 5 s of the last subscription).
 */
object LiveResources {
  def counts: Map[String, Int] = Map(
    "clients" -> KinesisClients.openClients,
    "credentialProviders" -> AwsCredentials.live,
    "cachedReaders" -> ExecutorCursors.size,
    "openSubscriptions" -> SubscriptionCursor.openSubscriptions,
    "limiterTurns" -> limiterTurns)

  /** The subscribe limiter's turns that still hold a call back (older ones are dropped first). */
  private def limiterTurns: Int = {
    SubscribeLimiter.global.prune()
    SubscribeLimiter.global.size
  }

  /** [[counts]] for callers outside Scala (PySpark through py4j). */
  def countsJava: java.util.Map[String, Integer] = counts.map { case (k, v) => k -> Integer.valueOf(v) }.asJava

  /** The names of the live threads of the connector named after `queryName` (its prefetcher, block remover, release job). */
  def threadsOf(queryName: String): Seq[String] =
    Thread.getAllStackTraces.keySet.asScala.toSeq.filter(_.isAlive).map(_.getName)
      .filter(n => n.startsWith("kinesis-") && n.endsWith(queryName)).sorted
}
