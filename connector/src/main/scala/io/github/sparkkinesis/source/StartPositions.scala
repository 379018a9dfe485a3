// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import io.github.sparkkinesis.client.ShardDescription
import io.github.sparkkinesis.options.InitialPosition
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}

/** Where each shard starts for an `initialPosition`, as concrete positions. */
object StartPositions {
  /**
   * The positions of the `listed` shards; "latest" becomes `nowMillis`, so a time stays concrete
   * when a batch is read again. Per-shard positions name some shards: the others start at the
   * trim horizon, but those a named shard descends from are left out. Such positions come from a
   * reader that had finished those parents (a checkpoint drops them, as do the offsets of the
   * connectors `offsets import` reads), so reading them again would repeat their records.
   */
  def of(initial: InitialPosition, listed: Map[ShardKey, ShardDescription], nowMillis: Long)
      : Map[ShardKey, ShardPosition] = {
    val shards = listed.keySet
    initial match {
      case InitialPosition.TrimHorizon => shards.map(_ -> ShardPosition.TrimHorizon).toMap
      case InitialPosition.AtTimestamp(ms) => shards.map(_ -> ShardPosition.AtTimestamp(ms)).toMap
      case InitialPosition.Latest => shards.map(_ -> ShardPosition.AtTimestamp(nowMillis)).toMap
      case InitialPosition.Positions(starts) =>
        val named = starts.shards.filter { case (k, _) => shards.contains(k) }
        val finished = ancestors(named.keySet, listed) -- named.keySet
        (shards -- finished).map(_ -> ShardPosition.TrimHorizon).toMap ++ named
    }
  }

  /** Every shard some of `shards` descend from, as far as the listing names them. */
  private def ancestors(shards: Set[ShardKey], listed: Map[ShardKey, ShardDescription]): Set[ShardKey] = {
    val parents = shards.flatMap(k => listed.get(k).toSeq.flatMap(_.parents).map(ShardKey(k.stream, _)))
      .filter(listed.contains)
    if (parents.isEmpty) parents else parents ++ ancestors(parents, listed)
  }
}
