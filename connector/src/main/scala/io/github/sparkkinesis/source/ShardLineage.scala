// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import io.github.sparkkinesis.client.ShardDescription
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}

/**
 * Which shards may be read now. A child shard (from a split or merge) is read only after every
 * parent the query tracks has been read to its end (ARCHITECTURE.md invariant 2), so records of one
 * partition key come in Kinesis order. A parent the query does not track (expired, or from
 * before the query's start) does not hold its children back.
 */
object ShardLineage {
  def readable(
      tracked: Map[ShardKey, ShardPosition],
      descriptions: Map[ShardKey, ShardDescription]): Map[ShardKey, ShardPosition] =
    tracked.filter { case (key, position) =>
      val parents = descriptions.get(key).toSeq.flatMap(_.parents).map(ShardKey(key.stream, _))
      !position.isInstanceOf[ShardPosition.ShardEnd] &&
      parents.forall(p => tracked.get(p).forall(_.isInstanceOf[ShardPosition.ShardEnd]))
    }
}
