// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}

/** The driver's chains of prefetched blocks: what a batch can read, what a round fetches next, what a commit frees. */
class PrefetchIndexSuite extends AnyFunSuite with Matchers {
  import ShardPosition._

  private val parent = ShardKey("clicks", "shardId-000000000000")
  private val child = ShardKey("clicks", "shardId-000000000001")
  private val other = ShardKey("clicks", "shardId-000000000002")

  /** A block of `shard` with the records after `from` up to sequence `to`, arrived at `arrived`. */
  private def block(shard: ShardKey, from: ShardPosition, to: String, records: Int = 2, arrived: Long = 0L) =
    PrefetchedBlock(shard, from, AfterSequence(to), Some(s"input-1-$to"), Some("executor_h_1"), records,
      records * 10L, arrived, arrived + 1)

  /** An index with `shard` started at the trim horizon and blocks ending at sequences 10, 20, 30. */
  private def withChain(shard: ShardKey = parent): (PrefetchIndex, Seq[PrefetchedBlock]) = {
    val index = new PrefetchIndex
    index.reset(shard, TrimHorizon)
    val blocks = Seq(block(shard, TrimHorizon, "10"), block(shard, AfterSequence("10"), "20"),
      block(shard, AfterSequence("20"), "30"))
    blocks.foreach(b => index.append(b) shouldBe true)
    (index, blocks)
  }

  test("a chain grows only with blocks that start where it ends") {
    val (index, _) = withChain()
    index.tail(parent) shouldBe Some(AfterSequence("30"))
    index.append(block(parent, AfterSequence("10"), "40")) shouldBe false // an answer from before a reset
    index.append(block(parent, AfterSequence("30"), "30").copy(
        to = AfterSequence("30"))) shouldBe false // moves nothing
    index.append(block(other, TrimHorizon, "5")) shouldBe false // a shard not tracked
    index.tail(parent) shouldBe Some(AfterSequence("30"))
    index.bufferedRecords shouldBe 6
    index.bufferedBytes shouldBe 60
  }

  test("reachable: from any block boundary to the chain's end, and nowhere from off the chain") {
    val (index, _) = withChain()
    index.reachable(parent, TrimHorizon) shouldBe Some(AfterSequence("30"))
    index.reachable(parent, AfterSequence("20")) shouldBe Some(AfterSequence("30"))
    index.reachable(parent, AfterSequence("30")) shouldBe Some(AfterSequence("30")) // the tail: nothing more yet
    index.reachable(parent, AfterSequence("15")) shouldBe None // inside a block: the chain must restart there
    index.reachable(other, TrimHorizon) shouldBe None
  }

  test("reachable stops at the first block a batch may not take") {
    val index = new PrefetchIndex
    index.reset(parent, TrimHorizon)
    index.append(block(parent, TrimHorizon, "10", arrived = 100)) shouldBe true
    index.append(block(parent, AfterSequence("10"), "20", arrived = 200)) shouldBe true
    index.reachable(parent, TrimHorizon, AvailableNowCutoff.accepts(Some(150L))) shouldBe Some(AfterSequence("10"))
    index.reachable(parent, TrimHorizon, AvailableNowCutoff.accepts(None)) shouldBe Some(AfterSequence("20"))
  }

  test("blocksBetween names exactly the blocks of a batch's range") {
    val (index, blocks) = withChain()
    index.blocksBetween(parent, AfterSequence("10"), AfterSequence("30")) shouldBe blocks.drop(1)
    index.blocksBetween(parent, TrimHorizon, AfterSequence("10")) shouldBe blocks.take(1)
    index.blocksBetween(parent, AfterSequence("15"), AfterSequence("30")) shouldBe empty
    index.blocksBetween(parent, TrimHorizon, AfterSequence("25")) shouldBe empty
  }

  test("release frees the blocks up to a committed end and moves the chain's base there") {
    val (index, blocks) = withChain()
    index.release(parent, AfterSequence("20")) shouldBe blocks.take(2)
    index.allBlocks shouldBe blocks.drop(2)
    index.reachable(parent, AfterSequence("20")) shouldBe Some(AfterSequence("30"))
    index.reachable(parent, TrimHorizon) shouldBe None
    index.release(parent, AfterSequence("25")) shouldBe empty // not a block boundary: nothing freed
    index.release(parent, AfterSequence("30")) shouldBe blocks.drop(2)
    index.bufferedBytes shouldBe 0
    index.tail(parent) shouldBe Some(AfterSequence("30"))
  }

  test("reset starts a shard afresh and hands back its blocks; remove forgets it") {
    val (index, blocks) = withChain()
    index.reset(parent, AfterSequence("15")) shouldBe blocks
    index.tail(parent) shouldBe Some(AfterSequence("15"))
    index.reachable(parent, AfterSequence("15")) shouldBe Some(AfterSequence("15"))
    index.append(block(parent, AfterSequence("15"), "40")) shouldBe true
    index.remove(parent).map(_.to) shouldBe Seq(AfterSequence("40"))
    index.shards shouldBe empty
  }

  test("fetchable: open shards from their tails; a child only once its tracked parents reached their end") {
    val (index, _) = withChain()
    index.reset(child, TrimHorizon)
    index.reset(other, AfterSequence("7"))
    val parents = Map(child -> Seq(parent))
    index.fetchable(parents).sortBy(_.shard) shouldBe Seq(
      ShardFetchRequest(parent, AfterSequence("30")), ShardFetchRequest(other, AfterSequence("7")))

    index.append(PrefetchedBlock(parent, AfterSequence("30"), ShardEnd(Some("30")), None, None, 0, 0L, 0L, 0L))
    index.fetchedToEnd(parent) shouldBe true
    index.fetchable(parents).map(_.shard).sorted shouldBe Seq(child, other)

    // A parent the query does not track (expired, or from before its start) holds nothing back.
    index.remove(parent)
    index.fetchable(parents).map(_.shard).sorted shouldBe Seq(child, other)
  }

  /** Whether `change` moved what `version` reads. */
  private def changes(version: => Long)(change: => Any): Boolean = {
    val before = version
    change
    version != before
  }

  test("the version moves with every change of a chain, and only then") {
    val (index, blocks) = withChain()
    def moves(change: => Any): Boolean = changes(index.version)(change)
    moves(index.reachable(parent, TrimHorizon)) shouldBe false
    moves(index.blocksBetween(parent, TrimHorizon, AfterSequence("30"))) shouldBe false
    moves(index.fetchable(Map.empty)) shouldBe false
    moves(index.append(block(parent, AfterSequence("10"), "40"))) shouldBe false // refused
    moves(index.append(block(parent, AfterSequence("30"), "40"))) shouldBe true
    moves(index.release(parent, AfterSequence("15"))) shouldBe false // no block ends there
    moves(index.release(parent, blocks.head.to)) shouldBe true
    moves(index.remove(other)) shouldBe false
    moves(index.reset(other, TrimHorizon)) shouldBe true
    moves(index.remove(other)) shouldBe true
  }

  test("the shard set's version moves when fetchable may name other shards: started, reset, removed, ended") {
    val (index, blocks) = withChain()
    def moves(change: => Any): Boolean = changes(index.shardSetVersion)(change)
    // What a steady stream does between rounds leaves it: blocks come and go on the same shards.
    moves(index.append(block(parent, AfterSequence("30"), "40"))) shouldBe false
    moves(index.release(parent, blocks.head.to)) shouldBe false
    moves(index.reset(child, TrimHorizon)) shouldBe true
    moves(index.append(PrefetchedBlock(parent, AfterSequence("40"), ShardEnd(Some("40")), None, None, 0, 0L, 0L,
          0L))) shouldBe true
    moves(index.reset(child, AfterSequence("5"))) shouldBe true
    moves(index.remove(child)) shouldBe true
    moves(index.remove(child)) shouldBe false
  }

  test("reachable from a released chain's base takes its blocks from the first") {
    val (index, blocks) = withChain()
    index.release(parent, blocks.head.to)
    index.reachable(parent, AfterSequence("10")) shouldBe Some(AfterSequence("30"))
    index.reachable(parent, AfterSequence("10"), _.to != AfterSequence("30")) shouldBe Some(AfterSequence("20"))
    index.release(parent, AfterSequence("30"))
    index.reachable(parent, AfterSequence("30")) shouldBe Some(AfterSequence("30"))
  }

  test("a position is on a chain where reachable finds it, and shardsNot names the shards a set leaves out") {
    val (index, blocks) = withChain()
    index.release(parent, blocks.head.to)
    index.reset(other, AfterSequence("5"))
    for (position <- Seq(TrimHorizon, AfterSequence("5"), AfterSequence("10"), AfterSequence("15"),
        AfterSequence("20"), AfterSequence("30"), AfterSequence("40")); shard <- Seq(parent, child, other)) {
      withClue(s"$shard at $position: ") {
        index.onChain(shard, position) shouldBe index.reachable(shard, position).isDefined
      }
    }
    index.shardsNot(Set(parent)) shouldBe Seq(other)
    index.shardsNot(Set(parent, other)) shouldBe empty
  }

  test("what is buffered stays the sum of the blocks held, through appends, commits, resets and removals") {
    val random = new scala.util.Random(7)
    val shards = Seq(parent, child, other)
    val index = new PrefetchIndex
    shards.foreach(index.reset(_, TrimHorizon))
    var next = 0
    (1 to 2000).foreach { _ =>
      val shard = shards(random.nextInt(shards.size))
      random.nextInt(10) match {
        case 0 => index.reset(shard, TrimHorizon)
        case 1 =>
          index.remove(shard)
          index.reset(shard, TrimHorizon)
        case 2 | 3 => index.blocksOf(shard).headOption.foreach(b => index.release(shard, b.to))
        case _ =>
          next += 1
          index.append(block(shard, index.tail(shard).get, f"$next%06d", records = 1 + random.nextInt(5)))
      }
      index.bufferedRecords shouldBe index.allBlocks.map(_.records.toLong).sum
      index.bufferedBytes shouldBe index.allBlocks.map(_.bytes).sum
    }
  }

  test("shardsFetchedToEnd counts the tracked shards fetched to their end, through appends, resets and removals") {
    val (index, _) = withChain()
    index.reset(child, TrimHorizon)
    index.shardsFetchedToEnd shouldBe 0
    def end(shard: ShardKey, after: String) =
      PrefetchedBlock(shard, AfterSequence(after), ShardEnd(Some(after)), None, None, 0, 0L, 0L, 0L)
    index.append(end(parent, "30")) shouldBe true
    index.shardsFetchedToEnd shouldBe 1
    index.append(end(parent, "30")) shouldBe false // a stale answer again: counted once
    index.shardsFetchedToEnd shouldBe 1
    index.release(parent, ShardEnd(Some("30"))) // the commit that reached the end keeps it ended
    index.shardsFetchedToEnd shouldBe 1
    index.reset(other, ShardEnd(Some("7"))) // restarted from a checkpoint that reached the end
    index.shardsFetchedToEnd shouldBe 2
    index.reset(parent, AfterSequence("20")) // started again before its end (a batch re-run)
    index.shardsFetchedToEnd shouldBe 1
    index.remove(other)
    index.remove(child)
    index.shardsFetchedToEnd shouldBe 0
  }
}
