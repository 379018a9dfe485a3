// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import io.github.sparkkinesis.client.ShardDescription
import io.github.sparkkinesis.kpl.{HashKeyRange, OutOfRangePolicy, RangeCheck}
import io.github.sparkkinesis.offsets.ShardKey

/** How the user records of each listed shard's aggregates are checked (option `outOfRangeUserRecords`). */
object RangeChecks {

  /**
   * Each listed shard's range with the ranges of its parents among `knownRanges` (a parent that
   * expired before it was ever listed is unknown, and a split cannot be shown without it).
   */
  def of(listed: Map[ShardKey, ShardDescription], knownRanges: Map[ShardKey, HashKeyRange],
      policy: OutOfRangePolicy): Map[ShardKey, RangeCheck] =
    listed.flatMap { case (key, d) =>
      d.hashKeyRange.map { range =>
        key -> RangeCheck(range, d.parents.flatMap(p => knownRanges.get(ShardKey(key.stream, p))), policy)
      }
    }

  def ranges(listed: Map[ShardKey, ShardDescription]): Map[ShardKey, HashKeyRange] =
    listed.flatMap { case (key, d) => d.hashKeyRange.map(key -> _) }
}
