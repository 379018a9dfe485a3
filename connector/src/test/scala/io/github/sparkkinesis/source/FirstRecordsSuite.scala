// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.FakeKinesisApi
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}

class FirstRecordsSuite extends AnyFunSuite with Matchers {
  private def shard(i: Int) = ShardKey("clicks", f"shardId-$i%012d")

  test("a polling query's start at trim_horizon names each shard's first record; an empty shard keeps its start") {
    val api = new FakeKinesisApi().createStream("clicks", 2)
    val seqs = api.putMany("clicks", shard(0).shardId, "a", 3)
    FirstRecords.namedAll(api, Map(shard(0) -> ShardPosition.TrimHorizon, shard(1) -> ShardPosition.TrimHorizon),
      "q", efo = false) shouldBe Map(shard(0) -> ShardPosition.AtSequence(seqs.head),
      shard(1) -> ShardPosition.TrimHorizon)
  }

  test("an enhanced fan-out query makes no GetRecords call: its positions stay as they are") {
    val api = new FakeKinesisApi().createStream("clicks", 2)
    api.putMany("clicks", shard(0).shardId, "a", 3)
    val starts: Map[ShardKey, ShardPosition] =
      Map(shard(0) -> ShardPosition.TrimHorizon, shard(1) -> ShardPosition.AtTimestamp(1000L))
    FirstRecords.namedAll(api, starts, "q", efo = true) shouldBe starts
    FirstRecords.named(api, shard(0), ShardPosition.TrimHorizon, "q", efo = true) shouldBe ShardPosition.TrimHorizon
    api.callCount("GetRecords") + api.callCount("GetShardIterator") shouldBe 0
  }
}
