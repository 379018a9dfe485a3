// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import org.scalatest.funsuite.AnyFunSuite

import io.github.sparkkinesis.client.KplCounts
import io.github.sparkkinesis.efo.SubscriptionCounts
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}

/** Prefetch reports reach the driver as they were sent, whatever they hold. */
class PrefetchResultCodecSuite extends AnyFunSuite {
  private val shard = ShardKey("orders-ü", "shardId-000000000007")
  private val positions = Seq(
    ShardPosition.TrimHorizon, ShardPosition.AtTimestamp(1700000000123L), ShardPosition.AtSequence("4959"),
    ShardPosition.AfterSequence("49590338271490256608559692538361571095921575989136588802"),
    ShardPosition.AfterSequence("1", Some(42L)), ShardPosition.ShardEnd(None), ShardPosition.ShardEnd(Some("99")))

  test("every shard position, block and status comes back equal") {
    val blocks = positions.zip(positions.tail).zipWithIndex.map { case ((from, to), i) =>
      PrefetchedBlock(shard, from, to, if (i % 2 == 0) Some(s"kinesis-block-$i") else None,
        if (i % 3 == 0) Some("executor_host_1") else None, i * 1000, i * 1000000L, 17L * i, Long.MaxValue - i)
    }
    val status = positions.zipWithIndex.map { case (p, i) =>
      ShardFetchStatus(shard, p, i * 10L, if (i % 2 == 0) Some(123456789L + i) else None, i, s"executor-$i")
    }
    val result = PrefetchResult(blocks, status, "executor_driver", Some(SubscriptionCounts(3, 4, 5)),
      KplCounts(2, 7, Some("record 1 has the KPL magic bytes but a bad checksum")), dataLossEvents = 3)
    assert(PrefetchResultCodec.decode(PrefetchResultCodec.encode(result)) == result)
  }

  test("an empty report, with nothing optional set, comes back equal") {
    val empty = PrefetchResult(Seq.empty, Seq.empty, "")
    assert(PrefetchResultCodec.decode(PrefetchResultCodec.encode(empty)) == empty)
  }

  test("the driver's reply to a hand-over comes back equal; an answer without a pace stops the task") {
    for (reply <-
        Seq(HandOverReply(keepReading = true, 2000L), HandOverReply(keepReading = false), HandOverReply(true)))
      assert(PrefetchReports.reply(PrefetchReports.answer(reply)) == reply)
    assert(PrefetchReports.reply(Array.emptyByteArray) == HandOverReply(keepReading = false))
  }

  test("a report of another format is refused, saying so") {
    val bytes = PrefetchResultCodec.encode(PrefetchResult(Seq.empty, Seq.empty, "x"))
    bytes(0) = 9
    val e = intercept[IllegalArgumentException](PrefetchResultCodec.decode(bytes))
    assert(e.getMessage.contains("format 9"))
  }
}
