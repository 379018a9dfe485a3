// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import scala.collection.mutable

import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}

/**
 * The driver's record of what is prefetched: per shard, a chain of blocks from a base
 * position, each block starting where the previous one ended. The chain's tail is where the
 * next prefetch of the shard starts. A shard whose tail is a `ShardEnd` was fetched to its end.
 * Not thread-safe; the [[Prefetcher]] guards it.
 */
final class PrefetchIndex {
  private final class Chain(var base: ShardPosition) {
    val blocks = mutable.ArrayBuffer.empty[PrefetchedBlock]
    // Without an Option: every trigger and progress report asks this of each of thousands of shards.
    def tail: ShardPosition = if (blocks.isEmpty) base else blocks.last.to
  }

  private val chains = mutable.Map.empty[ShardKey, Chain]
  private var changes = 0L
  private var shardSetChanges = 0L
  private var ended = 0 // chains whose tail is a ShardEnd
  // Kept as blocks come and go: every round and progress report asks, over thousands of shards.
  private var bytes = 0L
  private var records = 0L

  private def noLongerHeld(blocks: Iterable[PrefetchedBlock]): Unit = blocks.foreach { block =>
    bytes -= block.bytes
    records -= block.records
  }

  /**
   * Grows with every change of the chains: while it stays, [[reachable]] answers as before, so
   * a trigger that finds it unchanged need not ask again for each shard.
   */
  def version: Long = changes

  /**
   * Grows whenever [[fetchable]] may name other shards: a shard started, reset or removed, or
   * fetched to its end (its children become fetchable). A running round reads the shards it
   * was given; once this moved, the next round should be planned.
   */
  def shardSetVersion: Long = shardSetChanges

  def shards: Set[ShardKey] = chains.keySet.toSet

  def shardCount: Int = chains.size

  def tail(shard: ShardKey): Option[ShardPosition] = chains.get(shard).map(_.tail)

  /**
   * How many shards were fetched to their end and are still tracked: a reshard under way (a
   * closed shard's children are to be found) while this is above zero.
   */
  def shardsFetchedToEnd: Int = ended

  /** Whether `shard` was fetched to its end (its chain ends at a `ShardEnd`). */
  def fetchedToEnd(shard: ShardKey): Boolean = {
    val chain = chains.getOrElse(shard, null)
    chain != null && chain.tail.isInstanceOf[ShardPosition.ShardEnd]
  }

  /** The tracked shards that `keep` does not accept. */
  def shardsNot(keep: ShardKey => Boolean): Seq[ShardKey] = chains.keysIterator.filterNot(keep).toList

  /**
   * The shards to fetch next, each from its chain's tail: those not fetched to their end whose
   * tracked parents all were (ARCHITECTURE.md invariant 2). A parent not tracked holds nothing
   * back.
   */
  def fetchable(parentsOf: Map[ShardKey, Seq[ShardKey]]): Seq[ShardFetchRequest] =
    chains.toSeq.collect {
      case (shard, chain) if !fetchedToEnd(shard) && parentsOf.getOrElse(shard, Nil).forall(parentDone) =>
        ShardFetchRequest(shard, chain.tail)
    }

  private def parentDone(parent: ShardKey): Boolean = !chains.contains(parent) || fetchedToEnd(parent)

  /** Starts a shard afresh at `position`; returns the blocks dropped (to be removed). */
  def reset(shard: ShardKey, position: ShardPosition): Seq[PrefetchedBlock] = {
    val dropped = chains.get(shard).map(_.blocks.toSeq).getOrElse(Nil)
    noLongerHeld(dropped)
    if (fetchedToEnd(shard)) ended -= 1
    chains(shard) = new Chain(position)
    if (position.isInstanceOf[ShardPosition.ShardEnd]) ended += 1
    changes += 1
    shardSetChanges += 1
    dropped
  }

  def remove(shard: ShardKey): Seq[PrefetchedBlock] = chains.remove(shard).map { chain =>
    if (chain.tail.isInstanceOf[ShardPosition.ShardEnd]) ended -= 1
    changes += 1
    shardSetChanges += 1
    noLongerHeld(chain.blocks)
    chain.blocks.toSeq
  }.getOrElse(Nil)

  /** Adds a block if it continues its shard's chain; a stale answer (the shard was reset) is refused. */
  def append(block: PrefetchedBlock): Boolean = chains.get(block.shard) match {
    case Some(chain) if chain.tail == block.from && block.to != block.from =>
      chain.blocks += block
      bytes += block.bytes
      records += block.records
      changes += 1
      if (block.to.isInstanceOf[ShardPosition.ShardEnd]) {
        shardSetChanges += 1
        ended += 1
      }
      true
    case _ => false
  }

  /**
   * How far the shard can be read from `from` with the blocks at hand, taking blocks while
   * `accept` allows. None when `from` is not on the chain (the chain must be reset there).
   */
  def reachable(shard: ShardKey, from: ShardPosition,
      accept: PrefetchedBlock => Boolean = _ => true): Option[ShardPosition] =
    chains.get(shard).flatMap { chain =>
      val start = startOf(chain, from)
      if (start < 0) {
        if (chain.tail == from) Some(from) else None
      } else {
        // A loop, not iterators: a busy trigger asks this of every shard.
        var end = from
        var i = start
        while (i < chain.blocks.length && accept(chain.blocks(i))) {
          end = chain.blocks(i).to
          i += 1
        }
        Some(end)
      }
    }

  /** Whether `from` is on the shard's chain: a block starts there, or the chain ends there. */
  def onChain(shard: ShardKey, from: ShardPosition): Boolean = chains.get(shard).exists { chain =>
    startOf(chain, from) >= 0 || chain.tail == from
  }

  /** The index of the block of `chain` that starts at `from`, or -1. */
  private def startOf(chain: Chain, from: ShardPosition): Int =
    // Mostly `from` is the base: the blocks before it were released when the batch committed.
    if (chain.blocks.nonEmpty && chain.base == from) 0 else chain.blocks.indexWhere(_.from == from)

  /** The blocks holding the records after `from` up to `to`. */
  def blocksBetween(shard: ShardKey, from: ShardPosition, to: ShardPosition): Seq[PrefetchedBlock] =
    chains.get(shard).toSeq.flatMap { chain =>
      val start = startOf(chain, from)
      val end = if (start < 0) -1 else chain.blocks.indexWhere(_.to == to, start)
      if (end < 0) Nil else chain.blocks.view.slice(start, end + 1).toList
    }

  /** Forgets the blocks up to `upTo` (a committed end); returns them, to be removed. */
  def release(shard: ShardKey, upTo: ShardPosition): Seq[PrefetchedBlock] =
    chains.get(shard).toSeq.flatMap { chain =>
      val end = chain.blocks.indexWhere(_.to == upTo)
      if (end < 0) Nil
      else {
        val released = chain.blocks.take(end + 1).toSeq
        chain.blocks.remove(0, end + 1)
        noLongerHeld(released)
        chain.base = upTo
        changes += 1
        released
      }
    }

  def bufferedBytes: Long = bytes

  def bufferedRecords: Long = records

  /** The blocks of `shard`'s chain, oldest first. */
  def blocksOf(shard: ShardKey): Seq[PrefetchedBlock] = chains.get(shard).map(_.blocks.toSeq).getOrElse(Nil)

  def allBlocks: Seq[PrefetchedBlock] = chains.valuesIterator.flatMap(_.blocks).toSeq
}
