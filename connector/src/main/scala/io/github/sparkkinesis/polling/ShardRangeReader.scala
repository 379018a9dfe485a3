// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.polling

import org.apache.spark.internal.Logging

import io.github.sparkkinesis.client.{KinesisApi, KinesisRecord}
import io.github.sparkkinesis.errors.KinesisErrors
import io.github.sparkkinesis.kpl.RangeCheck
import io.github.sparkkinesis.options.FetchSettings
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.time.{Clock, SystemClock}

/**
 * Yields exactly the user records of a shard after `start` up to `end` (inside a KPL aggregate,
 * when it names a sub-sequence): the range a batch's offsets name. Reading it again yields the
 * same records, which is what makes re-running a failed batch exact.
 *
 * Records of the range retention deleted since the driver saw them (a batch re-run after the
 * query was stopped for longer than the retention period) fail the read, or, with
 * `failOnDataLoss` false, are skipped: the reader yields what is left of the range, logs the
 * loss and calls `onDataLoss` once (the batch counts it in `dataLossEvents`).
 */
final class ShardRangeReader(
    api: KinesisApi,
    shard: ShardKey,
    start: ShardPosition,
    end: ShardPosition.AfterSequence,
    settings: FetchSettings,
    clock: Clock = SystemClock,
    rangeCheck: Option[RangeCheck] = None,
    onDataLoss: () => Unit = () => ()) extends Iterator[KinesisRecord] with Logging {

  private val cursor = new ShardCursor(api, shard, start, settings, clock, rangeCheck)
  private var pending: Iterator[KinesisRecord] = Iterator.empty
  private var reachedEnd = false
  private var emptyAtTip = 0
  private var lossCounted = false

  override def hasNext: Boolean = {
    while (!pending.hasNext && !reachedEnd) fetchMore()
    pending.hasNext
  }

  override def next(): KinesisRecord = {
    if (!hasNext) throw new NoSuchElementException(s"no more records in range of $shard")
    pending.next()
  }

  private def fetchMore(): Unit = {
    if (cursor.isEnded) return gone("the shard ended before the last record of the batch")
    val batch = cursor.fetch()
    // The cursor found the range's start deleted and went on from the oldest record left.
    if (batch.dataLossEvents > 0) countLoss()
    val (inRange, beyond) = batch.records.span(r => !r.isPast(end))
    pending = inRange.iterator
    val sawEnd = inRange.lastOption.exists(r => ShardPosition.covers(r.positionAfter, end))
    reachedEnd = beyond.nonEmpty || sawEnd
    // Records past the end without the end record itself: it was trimmed by retention since the
    // driver saw it. Stopping quietly here would drop the batch's records without a word.
    if (beyond.nonEmpty && !sawEnd) gone("the shard goes on past the range, but the range's last record is gone")
    // The range was seen on the driver, so its records exist; reaching the tip again and again
    // without them means they are gone (trimmed by retention), and waiting would hang forever.
    if (batch.records.isEmpty && batch.millisBehindLatest == 0) emptyAtTip += 1 else emptyAtTip = 0
    if (!reachedEnd && emptyAtTip >= ShardRangeReader.MaxEmptyReadsAtTip) {
      gone("the reader reached the tip of the shard without finding it")
    }
  }

  /** The rest of the range is gone: fails the read, or with `failOnDataLoss` false ends it, counted. */
  private def gone(reason: String): Unit = {
    if (settings.failOnDataLoss) {
      throw KinesisErrors.recordsUnavailable(shard.toString, start.toString, end.toString, reason)
    }
    logWarning(s"Records of shard $shard after $start up to $end can no longer be read from Kinesis: $reason. " +
      "They may have passed the stream's retention period; the batch goes on without them (failOnDataLoss is false)")
    reachedEnd = true
    countLoss()
  }

  private def countLoss(): Unit = if (!lossCounted) {
    lossCounted = true
    onDataLoss()
  }
}

object ShardRangeReader {
  val MaxEmptyReadsAtTip = 5
}
