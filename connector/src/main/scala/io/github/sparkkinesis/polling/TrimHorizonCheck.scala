// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.polling

import org.apache.spark.internal.Logging

import io.github.sparkkinesis.client.KinesisApi
import io.github.sparkkinesis.errors.KinesisErrors
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}

/**
 * Whether a reader about to continue after a record would skip records retention deleted: it
 * reads the shard's oldest record, and if that comes after the record the position names, the
 * named record is gone, and so is anything written between the two.
 *
 * The limit: Kinesis sequence numbers have gaps, so when nothing was written between the two
 * records (a query that had read everything, stopped for longer than the retention period,
 * while nothing new arrived until just before it restarted) this reports a loss that did not
 * happen. It never misses one: retention deletes in order, so a lost record means the named one
 * is gone too. A reader that keeps its iterator is not checked: it is at most five minutes
 * from its last call.
 */
final class TrimHorizonCheck(api: KinesisApi, shard: ShardKey, failOnDataLoss: Boolean) extends Logging {

  /**
   * Where to read from instead of `position`: itself when nothing was lost, the trim horizon
   * when records were lost and `failOnDataLoss` is false. With `failOnDataLoss`, a loss fails.
   * `before` runs before each GetRecords call (pacing).
   */
  def check(position: ShardPosition, before: () => Unit): Option[ShardPosition] = {
    val named = position match {
      case ShardPosition.AfterSequence(seq, _) => Some(seq)
      case ShardPosition.AtSequence(seq) => Some(seq)
      case _ => None
    }
    named.flatMap(seq => oldestSequence(before).filter(ShardPosition.compareSequences(_, seq) > 0)).map { oldest =>
      if (failOnDataLoss) throw KinesisErrors.dataLoss(shard.toString, s"after $position", oldest)
      logWarning(s"Records of shard $shard after $position may have been lost to retention; going on from the " +
        s"oldest record left, $oldest (failOnDataLoss is false)")
      ShardPosition.TrimHorizon
    }
  }

  /** The sequence number of the shard's oldest record; None when the shard holds none (after a few empty pages). */
  private def oldestSequence(before: () => Unit): Option[String] =
    TrimHorizonCheck.firstSequence(api, shard, ShardPosition.TrimHorizon, before)
}

object TrimHorizonCheck {
  /** Kinesis may answer empty pages behind the tip; this many are followed before giving up. */
  val MaxCalls = 5

  /**
   * The sequence number of the first record a reader starting at `position` would read now;
   * None when there is none yet (after a few empty pages). `before` runs before each GetRecords.
   */
  def firstSequence(api: KinesisApi, shard: ShardKey, position: ShardPosition,
      before: () => Unit = () => ()): Option[String] = {
    var iterator = Option(api.shardIterator(shard.stream, shard.shardId, position))
    var calls = 0
    while (iterator.isDefined && calls < MaxCalls) {
      before()
      val batch = api.getRecords(shard.stream, iterator.get, 1, None)
      calls += 1
      batch.records.headOption match {
        case Some(first) => return Some(first.sequenceNumber)
        case None if batch.millisBehindLatest == 0 => return None
        case None => iterator = batch.nextIterator
      }
    }
    None
  }
}
