// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import org.scalacheck.{Gen, Prop}
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.PropertyChecks
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.prefetch.BlockCut
import io.github.sparkkinesis.options.TriggerLimits

/**
 * Batches under maxRecordsPerTrigger / maxBytesPerTrigger: each within its limits, shared
 * among the shards, every record in exactly one batch, also when the query restarts and the
 * prefetcher cuts the rest into other blocks.
 */
class BatchLimitsSuite extends AnyFunSuite with Matchers with PropertyChecks {

  private def key(i: Int) = ShardKey("clicks", f"shardId-$i%012d")
  private val RecordBytes = 10L

  /** Record n of a shard (1-based) ends at AfterSequence(n); `cuts` are the block sizes in records. */
  private def steps(consumed: Int, cuts: Seq[Int]): Seq[BatchLimits.Step] =
    cuts.scanLeft(consumed)(_ + _).tail.zip(cuts).map { case (end, n) =>
      BatchLimits.Step(ShardPosition.AfterSequence(end.toString), n.toLong, n * RecordBytes, end.toLong)
    }

  /** Blocks of at most `cut` records covering records `from+1 .. total`, sizes drawn from `sizes` (cycled). */
  private def cutsOf(from: Int, total: Int, cut: Long, sizes: Seq[Int]): Seq[Int] = {
    val out = Vector.newBuilder[Int]
    var at = from
    var i = 0
    while (at < total) {
      val n = math.min(math.min(sizes(i % sizes.size).toLong, cut), (total - at).toLong).toInt
      out += n
      at += n
      i += 1
    }
    out.result()
  }

  private def consumedOf(position: ShardPosition): Int = position match {
    case ShardPosition.AfterSequence(seq, _) => seq.toInt
    case _ => 0
  }

  /**
   * The batches of a backlog of `totals` records per shard read under `limits`, as records per
   * shard per batch; the prefetcher cuts blocks as BlockCut says, in sizes from `sizes`; after
   * batch `restartAfter` it cuts the rest again from where the query stands (a restart).
   */
  private def batches(totals: Seq[Int], maxRecords: Long, sizes: Seq[Int], restartAfter: Int,
      restartSizes: Seq[Int]): Seq[Map[Int, Int]] = {
    val limits = BatchLimits.Limits(maxRecords = maxRecords)
    val cut = BlockCut.of(TriggerLimits(maxRecords = Some(maxRecords)), totals.size).records
    var consumed = totals.map(_ => 0)
    var blocks = totals.indices.map(i => cutsOf(0, totals(i), cut, sizes))
    val out = Vector.newBuilder[Map[Int, Int]]
    var n = 0
    while (consumed != totals) {
      if (n == restartAfter) blocks = totals.indices.map(i => cutsOf(consumed(i), totals(i), cut, restartSizes))
      val ends = BatchLimits.ends(totals.indices.map(i => key(i) -> steps(consumed(i), blocks(i))), limits)
      val after = totals.indices.map(i => ends.get(key(i)).map(consumedOf).getOrElse(consumed(i)))
      out += totals.indices.map(i => i -> (after(i) - consumed(i))).filter(_._2 > 0).toMap
      // The blocks the batch took are released; the rest stay.
      blocks = totals.indices.map { i =>
        var left = after(i) - consumed(i)
        blocks(i).dropWhile { b =>
          val take = left > 0; left -= b; take
        }
      }
      consumed = after
      n += 1
    }
    out.result()
  }

  private val backlog = for {
    shards <- Gen.choose(1, 6)
    totals <- Gen.listOfN(shards, Gen.choose(0, 3000))
    maxRecords <- Gen.choose(1L, 2500L)
    sizes <- Gen.nonEmptyListOf(Gen.choose(1, 4000))
    restartSizes <- Gen.nonEmptyListOf(Gen.choose(1, 4000))
    restartAfter <- Gen.choose(0, 10)
  } yield (totals, maxRecords, sizes, restartAfter, restartSizes)

  property("no batch over maxRecordsPerTrigger, every record in exactly one batch, across a restart", 300, 43L) {
    Prop.forAll(backlog) { case (totals, maxRecords, sizes, restartAfter, restartSizes) =>
      val read = batches(totals, maxRecords, sizes, restartAfter, restartSizes)
      read.foreach(batch => batch.values.sum.toLong should be <= maxRecords)
      read.foreach(batch => batch.values.sum should be > 0)
      totals.indices.map(i => read.map(_.getOrElse(i, 0)).sum) shouldBe totals
      true
    }
  }

  test("the limit is shared among the shards with records: a backlog on 4 shards moves on each in every batch") {
    val read = batches(Seq(4000, 4000, 4000, 4000), 1000, Seq(4000), restartAfter = -1, Seq(1))
    read.size shouldBe 16
    read.foreach(batch => batch shouldBe Map(0 -> 250, 1 -> 250, 2 -> 250, 3 -> 250))
  }

  test("a shard with a small backlog leaves its share to the others") {
    val read = batches(Seq(100, 4000), 1000, Seq(4000), restartAfter = -1, Seq(1))
    read.head shouldBe Map(0 -> 100, 1 -> 500)
    read(1) shouldBe Map(1 -> 1000)
  }

  test("maxBytesPerTrigger and maxRecordsPerShardPerTrigger bound a batch too; a block above the limit goes alone") {
    val shards = Seq(key(0) -> steps(0, Seq(10, 10, 10)), key(1) -> steps(0, Seq(10, 10, 10)))
    BatchLimits.ends(shards, BatchLimits.Limits(maxBytes = 35 * RecordBytes)) shouldBe
      Map(key(0) -> ShardPosition.AfterSequence("20"), key(1) -> ShardPosition.AfterSequence("10"))
    BatchLimits.ends(shards, BatchLimits.Limits(maxRecordsPerShard = 20)) shouldBe
      Map(key(0) -> ShardPosition.AfterSequence("20"), key(1) -> ShardPosition.AfterSequence("20"))
    BatchLimits.ends(shards, BatchLimits.Limits(maxBytes = 5)) shouldBe
      Map(key(0) -> ShardPosition.AfterSequence("10"))
  }

  test("a closed shard's end (a block without records) is taken even when the limit is reached") {
    val ended = BatchLimits.Step(ShardPosition.ShardEnd(Some("0")), 0, 0, 0)
    BatchLimits.ends(Seq(key(0) -> steps(0, Seq(10, 10)), key(1) -> Seq(ended)),
      BatchLimits.Limits(maxRecords = 10)) shouldBe
      Map(key(0) -> ShardPosition.AfterSequence("10"), key(1) -> ShardPosition.ShardEnd(Some("0")))
  }
}
