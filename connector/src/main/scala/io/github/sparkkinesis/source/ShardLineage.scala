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
  /**
   * `tracked` without the shards ended, and without those a tracked parent of which is not
   * read to its end; `parents` names each shard's parents (a shard with none may be missing).
   */
  def readable(
      tracked: Map[ShardKey, ShardPosition],
      parents: Map[ShardKey, Seq[ShardKey]]): Map[ShardKey, ShardPosition] =
    tracked.filter { case (key, position) =>
      !position.isInstanceOf[ShardPosition.ShardEnd] &&
      parents.getOrElse(key, Nil).forall(p => tracked.get(p).forall(_.isInstanceOf[ShardPosition.ShardEnd]))
    }

  /** The parents of every shard of `descriptions` that has any. */
  def parents(descriptions: Map[ShardKey, ShardDescription]): Map[ShardKey, Seq[ShardKey]] =
    descriptions.collect {
      case (key, d) if d.parents.nonEmpty => key -> d.parents.map(ShardKey(key.stream, _))
    }
}
