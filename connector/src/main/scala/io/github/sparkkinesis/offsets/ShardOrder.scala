// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.offsets

/**
 * The shards of an offset in order (by stream, then shard id). Offsets are written and
 * batches planned in this order, and at 10,000 shards a sort costs milliseconds, while the
 * shards themselves rarely change from one offset to the next: the last order is reused
 * whenever it names exactly the same shards (checking that is a lookup per shard).
 */
object ShardOrder {
  // The last order, shared by every caller; immutable once published.
  @volatile private var last: Array[ShardKey] = Array.empty

  /** The keys of `shards`, sorted. */
  def of(shards: scala.collection.Map[ShardKey, _]): IndexedSeq[ShardKey] = {
    val known = last
    // As many keys, all of them in `shards`, and keys are distinct: the same shards.
    val order = if (known.length == shards.size && known.forall(shards.contains)) known
    else {
      val sorted = shards.keysIterator.toArray
      java.util.Arrays.sort(sorted, ShardKey.ordering)
      last = sorted
      sorted
    }
    // A copy (microseconds): the kept array must not change.
    order.toIndexedSeq
  }
}
