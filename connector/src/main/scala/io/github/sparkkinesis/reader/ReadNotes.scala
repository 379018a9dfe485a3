// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.reader

import org.apache.spark.internal.Logging

import io.github.sparkkinesis.client.KplCounts
import io.github.sparkkinesis.offsets.ShardKey

/**
 * What a shard's reader reports besides its records, in one place for every kind of reader:
 * data losses found since the last batch it handed out, and what splitting KPL aggregates
 * found. A corrupt aggregate is logged once; user records outside the shard's hash-key range
 * are logged when first seen, and every drop is logged (and counted in the query's metrics).
 */
final class ReadNotes(shard: ShardKey) extends Logging {
  private var corruptionLogged = false
  private var outOfRangeLogged = false
  private var dropLogged = false
  private var losses = 0

  /** Retention deleted records this reader still had to read. */
  def dataLost(): Unit = losses += 1

  /** The data losses found since the last call. */
  def takeLosses(): Int = {
    val n = losses
    losses = 0
    n
  }

  def aggregatesSplit(kpl: KplCounts): Unit = {
    kpl.firstCorruption.filterNot(_ => corruptionLogged).foreach { reason =>
      corruptionLogged = true
      logWarning(s"Shard $shard: $reason; such records are returned as they are, not split")
    }
    val kept = kpl.outOfRangeRecords - kpl.droppedRecords
    if (kept > 0 && !outOfRangeLogged) {
      outOfRangeLogged = true
      logInfo(s"Shard $shard: kept $kept user records of KPL aggregates whose hash key is outside the shard's " +
        "range (their producer aggregates mixed partition keys); option outOfRangeUserRecords decides this")
    }
    if (kpl.droppedRecords > 0) {
      val message = s"Shard $shard: dropped ${kpl.droppedRecords} user records of KPL aggregates whose hash key " +
        "is outside the shard's range, as option outOfRangeUserRecords says (counted in outOfRangeRecordsDropped)"
      if (dropLogged) logInfo(message) else logWarning(message)
      dropLogged = true
    }
  }
}
