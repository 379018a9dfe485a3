// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.errors.KinesisConnectorException
import io.github.sparkkinesis.offsets.{KinesisSourceOffset, ShardKey, ShardPosition}

class CheckpointOffsetsSuite extends AnyFunSuite with Matchers {

  private val metadata = "file:/data/chk/sources/0"

  private def offset(streams: String*) =
    KinesisSourceOffset(streams.map(s => ShardKey(s, "shardId-000000000000") -> ShardPosition.TrimHorizon).toMap).json()

  test("an offset of the query's streams is read") {
    CheckpointOffsets.read(offset("a", "b"), Seq("a", "b"), metadata).shards.keySet.map(_.stream) shouldBe Set("a", "b")
  }

  test("a stream added to streamName since the checkpoint is fine") {
    CheckpointOffsets.read(offset("a"), Seq("a", "b"), metadata).shards.keySet.map(_.stream) shouldBe Set("a")
  }

  test("an offset naming a stream the query does not read is refused, naming both") {
    val e = intercept[KinesisConnectorException](CheckpointOffsets.read(offset("a", "other"), Seq("a"), metadata))
    e.getCondition shouldBe "KINESIS_OFFSET_STREAM_MISMATCH"
    e.getMessage should include("The Kinesis offset in checkpoint file:/data/chk names stream(s) 'other', which " +
      "this query does not read (its streamName is 'a')")
    e.getMessage should include("new checkpoint location")
  }

  test("an offset that is not the connector's is malformed, naming the checkpoint") {
    val e = intercept[KinesisConnectorException](CheckpointOffsets.read("""{"orders":{"0":42}}""", Seq("a"), metadata))
    e.getCondition shouldBe "KINESIS_OFFSET_MALFORMED"
    e.getMessage should include("The Kinesis offset in checkpoint file:/data/chk cannot be read: it has no integer")
    val newer = intercept[KinesisConnectorException](CheckpointOffsets.read("""{"version":9}""", Seq("a"), metadata))
    newer.getMessage should include("The Kinesis offset in checkpoint file:/data/chk has version 9")
  }
}
