// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.sdk

import java.time.Instant

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers
import software.amazon.awssdk.services.kinesis.model.ShardIteratorType

import io.github.sparkkinesis.offsets.ShardPosition

class SdkPositionsSuite extends AnyFunSuite with Matchers {
  private val seq = "49590338271490256608559692538361571095921575989136588898"
  private val millis = 1593105825000L

  // Every ShardPosition a read can start from, and where Kinesis must start for it.
  private val cases = Seq(
    ShardPosition.TrimHorizon -> (ShardIteratorType.TRIM_HORIZON, None, None),
    ShardPosition.AtTimestamp(millis) -> (ShardIteratorType.AT_TIMESTAMP, None, Some(Instant.ofEpochMilli(millis))),
    ShardPosition.AtSequence(seq) -> (ShardIteratorType.AT_SEQUENCE_NUMBER, Some(seq), None),
    ShardPosition.AfterSequence(seq) -> (ShardIteratorType.AFTER_SEQUENCE_NUMBER, Some(seq), None))

  test("GetShardIterator starts where every position says") {
    for ((position, (kind, sequence, time)) <- cases) {
      val r = SdkPositions.iteratorRequest("shardId-000000000001", position).build()
      r.shardId shouldBe "shardId-000000000001"
      (r.shardIteratorType, Option(r.startingSequenceNumber), Option(r.timestamp)) shouldBe (kind, sequence, time)
    }
  }

  test("SubscribeToShard starts where every position says, as GetShardIterator does") {
    for ((position, (kind, sequence, time)) <- cases) {
      val p = SdkPositions.startingPosition(position)
      (p.`type`, Option(p.sequenceNumber), Option(p.timestamp)) shouldBe (kind, sequence, time)
    }
  }

  test("nothing starts past the end of a closed shard") {
    for (end <- Seq(ShardPosition.ShardEnd(None), ShardPosition.ShardEnd(Some(seq)))) {
      an[IllegalArgumentException] should be thrownBy SdkPositions.iteratorRequest("s", end)
      an[IllegalArgumentException] should be thrownBy SdkPositions.startingPosition(end)
    }
  }
}
