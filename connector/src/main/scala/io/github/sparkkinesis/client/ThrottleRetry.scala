package io.github.sparkkinesis.client

import org.apache.spark.internal.Logging

/**
 * Retries a call Kinesis throttled that a query cannot go on without (ListShards: at most 100
 * calls per second per stream, shared with every other reader), waiting twice as long each
 * time. Reads have their own, gentler back-off (ShardCursor).
 */
object ThrottleRetry extends Logging {
  val MaxAttempts = 8
  val FirstWaitMs = 100L
  val MaxWaitMs = 2000L

  def apply[T](what: String, sleep: Long => Unit = Thread.sleep)(body: => T): T = {
    var attempt = 1
    while (true) {
      try {
        return body
      } catch {
        case e: ThrottledException if attempt < MaxAttempts =>
          val waitMs = math.min(MaxWaitMs, FirstWaitMs << (attempt - 1))
          logWarning(s"$what was throttled (attempt $attempt of $MaxAttempts); trying again in $waitMs ms: " +
            e.getMessage)
          sleep(waitMs)
          attempt += 1
      }
    }
    throw new IllegalStateException("unreachable")
  }
}
