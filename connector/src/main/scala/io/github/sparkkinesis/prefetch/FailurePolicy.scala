// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import io.github.sparkkinesis.errors.{CauseChain, KinesisError, KinesisErrors}

/**
 * What a failed prefetch round means for the query: a Kinesis error that retrying cannot fix
 * (access denied, stream gone) ends it at once; anything else is retried, waiting a second
 * longer each time, until [[FailurePolicy.MaxFailuresInARow]] rounds in a row failed. The error
 * that ended it is rethrown to the stream (ARCHITECTURE.md invariant 6). A round that found
 * its EFO consumer deleted is noted, so the stream registers it again at once. Not
 * thread-safe; the [[Prefetcher]] guards it.
 */
final class FailurePolicy {
  private var inARow = 0
  private var fatalError: Option[Throwable] = None
  private var consumerDeleted = false

  /** The error that ended prefetching, if one did. */
  def fatal: Option[Throwable] = fatalError

  def failuresInARow: Int = inARow

  def succeeded(): Unit = inARow = 0

  /** Whether a round failed because its EFO consumer was deleted, since the last time this was asked. */
  def takeConsumerDeleted(): Boolean = {
    val deleted = consumerDeleted
    consumerDeleted = false
    deleted
  }

  /** Records a failed round: how long to wait before the next one, or None when prefetching must end. */
  def failed(e: Throwable): Option[Long] = {
    val causes = CauseChain.of(e)
    val permanent = causes.collectFirst { case k: KinesisError if !KinesisErrors.isRetryable(k) => k }
    inARow += 1
    consumerDeleted ||= causes.exists(KinesisErrors.isEfoConsumerDeleted)
    if (permanent.isDefined || inARow >= FailurePolicy.MaxFailuresInARow) {
      fatalError = Some(permanent.map(_.asInstanceOf[Throwable]).getOrElse(e))
      None
    } else Some(1000L * inARow)
  }

  /** Prefetching ended on `e`, which no retry can get past (a fatal error of the prefetch thread). */
  def abandoned(e: Throwable): Unit = if (fatalError.isEmpty) fatalError = Some(e)
}

object FailurePolicy {
  val MaxFailuresInARow = 5
}
