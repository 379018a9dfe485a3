// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.failures

import java.util.concurrent.ThreadLocalRandom

import org.apache.spark.internal.Logging

/**
 * A doubling back-off with equal jitter: before retry `n` (0 for the first) the caller waits
 * half of `min(maxMs, firstMs * 2^n)` for sure and the other half at random, so readers that
 * failed together do not all come back at the same moment.
 */
final case class BackOff(firstMs: Long, maxMs: Long) {
  require(firstMs >= 0 && maxMs >= firstMs, s"invalid $this")

  /** The wait before retry `retry`, with `unitRandom` in [0, 1). */
  def delayMs(retry: Int, unitRandom: Double): Long = {
    val cap = math.min(maxMs.toDouble, firstMs.toDouble * math.pow(2, math.min(math.max(retry, 0), 40)))
    (cap / 2 + unitRandom * cap / 2).toLong
  }
}

/**
 * How often one kind of call is tried (`maxAttempts`, the first try included) and how long
 * to wait between tries. Calls whose retries are part of a reader's state (GetRecords,
 * SubscribeToShard, PutRecords entries) use their policy's numbers in their own loops; the
 * others run through [[run]].
 */
final case class RetryPolicy(maxAttempts: Int, backOff: BackOff) extends Logging {
  require(maxAttempts >= 1, s"invalid $this")

  /**
   * `body`, tried again after a back-off while it fails with an error `retryable` accepts, at
   * most `maxAttempts` times in all; then the last failure is thrown.
   */
  def run[T](what: String, retryable: Throwable => Boolean = Retryable.throttling,
      sleepMs: Long => Unit = Thread.sleep, random: () => Double = RetryPolicy.uniform)(body: => T): T = {
    var attempt = 1
    while (true) {
      try {
        return body
      } catch {
        case e: Exception if attempt < maxAttempts && retryable(e) =>
          val waitMs = backOff.delayMs(attempt - 1, random())
          logWarning(s"$what failed (attempt $attempt of $maxAttempts); trying again in $waitMs ms: " +
            e.getMessage)
          sleepMs(waitMs)
          attempt += 1
      }
    }
    throw new IllegalStateException("unreachable")
  }
}

/** The retry policy of every kind of call, in one place. */
object RetryPolicy {
  val uniform: () => Double = () => ThreadLocalRandom.current().nextDouble()

  /**
   * ListShards (and the stream description beside it): at most 100 calls per second per
   * stream, shared with every other reader, and the query cannot plan without it.
   */
  val ListShards: RetryPolicy = RetryPolicy(8, BackOff(100L, 2000L))

  /**
   * GetRecords refused for throttling: the shard's cursor reads half as much per call and
   * waits (5 calls and 2 MB per second per shard, shared with every other polling reader).
   */
  val GetRecordsThrottled: RetryPolicy = RetryPolicy(11, BackOff(1000L, 10000L))

  /**
   * A look at a shard's first record (a query's first start, a real-time batch's empty end):
   * a few tries, since a look that fails only leaves that start unchecked against retention.
   */
  val FirstRecord: RetryPolicy = RetryPolicy(4, BackOff(200L, 1000L))

  /** SubscribeToShard: at most one call per second per shard and consumer (defaults). */
  val SubscribeToShard: RetryPolicy = RetryPolicy(10, BackOff(1000L, 30000L))

  /**
   * Consumer management (register, describe, deregister, list): DescribeStreamConsumer allows
   * 20 calls per second per stream, RegisterStreamConsumer 5, shared by every query on the
   * stream. `pollMs` is how often a consumer being created is looked at.
   */
  def consumerManagement(pollMs: Long): RetryPolicy = RetryPolicy(9, BackOff(pollMs, pollMs * 32))

  /** PutRecords entries Kinesis refused: the sink's options `maxPutRetries` and the back-offs. */
  def putRecords(maxRetries: Int, firstMs: Long, maxMs: Long): RetryPolicy =
    RetryPolicy(maxRetries + 1, BackOff(firstMs, maxMs))
}
