// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.reader

import io.github.sparkkinesis.client.RecordBatch
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.threads.Doorbell

/**
 * What a prefetch task reads a shard with: polling's GetRecords cursor, or an enhanced
 * fan-out subscription. Either keeps its position concrete and lives on an executor across
 * tasks (see [[ExecutorCursors]]).
 */
trait ShardReader {
  def shard: ShardKey

  /** Where the next record would come from; a `ShardEnd` once the shard is done. */
  def position: ShardPosition

  def isEnded: Boolean

  /** Whether the last fetch reached the tip of the shard. */
  def atTip: Boolean

  /** The enhanced fan-out consumer (ARN) it subscribes with; None when it polls. */
  def consumer: Option[String] = None

  /** How often Kinesis throttled this reader. */
  def throttleEvents: Int

  /**
   * How often a reader at the tip needs to ask for more: at most every `periodMs` (polling; an
   * enhanced fan-out subscription is pushed its records and ignores it).
   */
  def paceAtTip(periodMs: Long): Unit = ()

  /**
   * Whether Kinesis pushes this reader its records (an enhanced fan-out subscription): it then
   * rings the bell given to [[wakeOnArrival]] when records arrive, and at the tip fetches
   * without waiting, as its task waits on the bell for all its shards at once.
   */
  def pushed: Boolean = false

  /** The bell a pushed reader rings from now on (see [[Doorbell]]); a polled reader ignores it. */
  def wakeOnArrival(bell: Doorbell): Unit = ()

  /** The next records; waits (paced, or for events) at most a short while. */
  def fetch(): RecordBatch

  /** Releases what the reader holds open (an EFO subscription). */
  def close(): Unit
}
