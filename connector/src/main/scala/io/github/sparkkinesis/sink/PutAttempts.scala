// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import scala.collection.mutable

import org.apache.spark.internal.Logging

import io.github.sparkkinesis.client.{KinesisPutApi, PutFailure, PutStored}
import io.github.sparkkinesis.client.failures.{RetryPolicy, Retryable}
import io.github.sparkkinesis.options.PutSettings
import io.github.sparkkinesis.time.Clock

/**
 * What one call came to. `failedRows` rows were given up (with the last error codes, counted
 * in rows); `misrouted` are the Kinesis records stored on another shard than the one they were
 * packed for, with the shard Kinesis named.
 */
private[sink] final case class CallOutcome(
    stream: String,
    failedRows: Int,
    codes: Map[String, Int],
    attempts: Int,
    misrouted: Seq[(Packed, String)])

/**
 * Sends one call until Kinesis stored every record of it, or gives up on those it keeps
 * refusing: refused records are sent again after a jittered, doubling back-off, up to
 * `maxPutRetries` times, before the lane sends anything else, so a key's records keep their
 * order through retries. Counts what happens in `counters`: rows and Kinesis records written
 * (an aggregate is one Kinesis record of many rows), calls, retries and refusals (of Kinesis
 * records), rows given up.
 */
private[sink] final class PutAttempts(
    api: KinesisPutApi,
    settings: PutSettings,
    counters: KinesisSinkCounters,
    clock: Clock,
    jitter: () => Double)
  extends Logging {

  private val retries =
    RetryPolicy.putRecords(settings.maxPutRetries, settings.retryBackoffMs, settings.maxRetryBackoffMs)

  def send(stream: String, call: IndexedSeq[Packed]): CallOutcome = {
    var pending = call
    var attempts = 0
    val misrouted = mutable.ArrayBuffer.empty[(Packed, String)]
    while (true) {
      counters.putRequests.incrementAndGet()
      val results = api.putRecords(stream, pending.map(_.entry))
      attempts += 1
      val refused = mutable.ArrayBuffer.empty[(Packed, PutFailure)]
      results.iterator.zip(pending.iterator).foreach {
        case (PutStored(shardId), record) =>
          counters.kinesisRecordsWritten.incrementAndGet()
          counters.recordsWritten.addAndGet(record.rows.size)
          counters.bytesWritten.addAndGet(record.rowBytes)
          if (record.target.exists(_.shardId != shardId)) misrouted += record -> shardId
        case (failure: PutFailure, record) =>
          refused += record -> failure
          if (Retryable.ThrottlingCodes.contains(failure.code)) counters.throttledRecords.incrementAndGet()
      }
      if (refused.isEmpty) return CallOutcome(stream, 0, Map.empty, attempts, misrouted.toSeq)

      val (retry, giveUp) = refused.partition { case (_, f) => Retryable.entryCode(f.code) }
      val codes = PutAttempts.summary(refused.map(_._2))
      if (retry.nonEmpty && giveUp.isEmpty && attempts < retries.maxAttempts) {
        val waitMs = backoffMs(attempts - 1)
        logInfo(s"PutRecords to stream '$stream': ${refused.size} of ${pending.size} records refused " +
          s"(${codes.mkString(", ")}); sending them again in ${waitMs}ms (retry $attempts of " +
          s"${settings.maxPutRetries})")
        counters.putRetries.addAndGet(retry.size)
        clock.sleepNanos(waitMs * 1000000L)
        pending = retry.map(_._1).toIndexedSeq
      } else {
        val rows = refused.map(_._1.rows.size).sum
        logWarning(s"PutRecords to stream '$stream': giving up on ${refused.size} records ($rows rows) after " +
          s"$attempts attempts (${codes.mkString(", ")}); first refusal: ${refused.head._2.message}")
        counters.failedRecords.addAndGet(rows)
        val byCode = refused.groupBy(_._2.code).map { case (code, rs) => code -> rs.map(_._1.rows.size).sum }
        return CallOutcome(stream, rows, byCode, attempts, misrouted.toSeq)
      }
    }
    throw new IllegalStateException("unreachable")
  }

  def backoffMs(retry: Int): Long = retries.backOff.delayMs(retry, jitter())
}

private object PutAttempts {
  def summary(failures: Iterable[PutFailure]): Seq[String] =
    failures.groupBy(_.code).map { case (code, fs) => code -> fs.size }.toSeq.sortBy(-_._2).map { case (code, n) =>
      s"$code: $n"
    }
}
