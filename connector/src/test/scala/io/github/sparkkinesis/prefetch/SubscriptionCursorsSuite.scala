// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.FakeKinesisApi
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}

class SubscriptionCursorsSuite extends AnyFunSuite with Matchers {
  private val shard = ShardKey("clicks", "shardId-000000000000")

  private def trimmedStream(): (FakeKinesisApi, Seq[String]) = {
    val api = new FakeKinesisApi().createStream("clicks", 1)
    val seqs = api.putMany("clicks", shard.shardId, "a", 4)
    api.trim("clicks", shard.shardId, 2) // retention deleted the first two
    (api, seqs)
  }

  test("a subscription's start after a record retention deleted is a data loss, or goes on from what is left") {
    val (api, seqs) = trimmedStream()
    val after = ShardPosition.AfterSequence(seqs.head, None)
    intercept[Exception](SubscriptionCursors.startCheck(api, shard, failOnDataLoss = true)(after)).getMessage should
      include("KINESIS_DATA_LOSS")
    SubscriptionCursors.startCheck(api, shard, failOnDataLoss = false)(after) shouldBe Some(ShardPosition.TrimHorizon)
  }

  test("without the permission to read a shard's oldest record, the check is skipped and the start kept") {
    val (api, seqs) = trimmedStream()
    api.denyShardIterators()
    SubscriptionCursors.startCheck(api, shard, failOnDataLoss = true)(ShardPosition.AfterSequence(seqs.head,
        None)) shouldBe
      None
    api.callCount("GetShardIterator") shouldBe 1
  }
}
