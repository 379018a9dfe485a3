// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import io.github.sparkkinesis.options.InitialPosition
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}

/** Where each shard starts for an `initialPosition`, as concrete positions. */
object StartPositions {
  /** "latest" becomes `nowMillis`: a time stays concrete when a batch is read again. */
  def of(initial: InitialPosition, shards: Set[ShardKey], nowMillis: Long): Map[ShardKey, ShardPosition] =
    initial match {
      case InitialPosition.TrimHorizon => shards.map(_ -> ShardPosition.TrimHorizon).toMap
      case InitialPosition.AtTimestamp(ms) => shards.map(_ -> ShardPosition.AtTimestamp(ms)).toMap
      case InitialPosition.Latest => shards.map(_ -> ShardPosition.AtTimestamp(nowMillis)).toMap
      // Shards not named start at the trim horizon.
      case InitialPosition.Positions(starts) =>
        shards.map(_ -> ShardPosition.TrimHorizon).toMap ++ starts.shards.filter { case (k, _) => shards.contains(k) }
    }
}
