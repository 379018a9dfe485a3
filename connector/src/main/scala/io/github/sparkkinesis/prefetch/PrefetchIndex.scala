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
    def tail: ShardPosition = blocks.lastOption.map(_.to).getOrElse(base)
  }

  private val chains = mutable.Map.empty[ShardKey, Chain]
  private var changes = 0L

  /**
   * Grows with every change of the chains: while it stays, [[reachable]] answers as before, so
   * a trigger that finds it unchanged need not ask again for each shard.
   */
  def version: Long = changes

  def shards: Set[ShardKey] = chains.keySet.toSet

  def shardCount: Int = chains.size

  def tail(shard: ShardKey): Option[ShardPosition] = chains.get(shard).map(_.tail)

  /** Whether `shard` was fetched to its end (its chain ends at a `ShardEnd`). */
  def fetchedToEnd(shard: ShardKey): Boolean = tail(shard).exists(_.isInstanceOf[ShardPosition.ShardEnd])

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
    chains(shard) = new Chain(position)
    changes += 1
    dropped
  }

  def remove(shard: ShardKey): Seq[PrefetchedBlock] = chains.remove(shard).map { chain =>
    changes += 1
    chain.blocks.toSeq
  }.getOrElse(Nil)

  /** Adds a block if it continues its shard's chain; a stale answer (the shard was reset) is refused. */
  def append(block: PrefetchedBlock): Boolean = chains.get(block.shard) match {
    case Some(chain) if chain.tail == block.from && block.to != block.from =>
      chain.blocks += block
      changes += 1
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
      // Mostly `from` is the base: the blocks before it were released when the batch committed.
      val start = if (chain.base == from && chain.blocks.nonEmpty) 0 else chain.blocks.indexWhere(_.from == from)
      if (start < 0) {
        if (chain.tail == from) Some(from) else None
      } else {
        Some(chain.blocks.iterator.drop(start).takeWhile(accept).foldLeft(from)((_, b) => b.to))
      }
    }

  /** The blocks holding the records after `from` up to `to`. */
  def blocksBetween(shard: ShardKey, from: ShardPosition, to: ShardPosition): Seq[PrefetchedBlock] =
    chains.get(shard).toSeq.flatMap { chain =>
      val start = chain.blocks.indexWhere(_.from == from)
      if (start < 0) Nil
      else {
        val rest = chain.blocks.drop(start)
        val end = rest.indexWhere(_.to == to)
        if (end < 0) Nil else rest.take(end + 1).toSeq
      }
    }

  /** Forgets the blocks up to `upTo` (a committed end); returns them, to be removed. */
  def release(shard: ShardKey, upTo: ShardPosition): Seq[PrefetchedBlock] =
    chains.get(shard).toSeq.flatMap { chain =>
      val end = chain.blocks.indexWhere(_.to == upTo)
      if (end < 0) Nil
      else {
        val released = chain.blocks.take(end + 1).toSeq
        chain.blocks.remove(0, end + 1)
        chain.base = upTo
        changes += 1
        released
      }
    }

  def bufferedBytes: Long = chains.valuesIterator.flatMap(_.blocks).map(_.bytes).sum

  def bufferedRecords: Long = chains.valuesIterator.flatMap(_.blocks).map(_.records.toLong).sum

  /** The blocks of `shard`'s chain, oldest first. */
  def blocksOf(shard: ShardKey): Seq[PrefetchedBlock] = chains.get(shard).map(_.blocks.toSeq).getOrElse(Nil)

  def allBlocks: Seq[PrefetchedBlock] = chains.valuesIterator.flatMap(_.blocks).toSeq
}
