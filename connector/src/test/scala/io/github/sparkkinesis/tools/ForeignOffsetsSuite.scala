// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.tools

import java.nio.file.Files

import com.fasterxml.jackson.databind.ObjectMapper
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.offsets.{ForeignOffset, ForeignPositionError, ForeignPositions, ShardPosition}
import io.github.sparkkinesis.offsets.ShardPosition.{AfterSequence, AtSequence, AtTimestamp, ShardEnd, TrimHorizon}

/** qubole's and awslabs' checkpoints read as this connector's positions, from their formats. */
class ForeignOffsetsSuite extends AnyFunSuite with Matchers {
  import OldCheckpoints._

  private val planned = 1764187200000L
  private val seq = "49590338271490256608559692538361571095921575989136588898"
  private val later = "49590338271490256608559692538361571095921575989136589999"
  private val s0 = "shardId-000000000000"
  private val s1 = "shardId-000000000001"
  private val s2 = "shardId-000000000002"

  private def position(json: String): ShardPosition =
    ForeignPositions.position(new ObjectMapper().readTree(json), "offsets/3, shard x", planned)

  private def checkpoint() = new OldCheckpoints(Files.createTempDirectory("old-checkpoint"))

  private def read(old: OldCheckpoints, connector: ForeignConnector, stream: Option[String] = None,
      metadataPath: Option[String] = None): ImportedProgress =
    ForeignCheckpoint.read(new SparkCheckpoint(old.toString), connector, stream, metadataPath)

  test("every iterator type becomes the position that continues right after what was read") {
    position(s"{${qubole("TRIM_HORIZON")}}") shouldBe TrimHorizon
    position(s"{${qubole("AFTER_SEQUENCE_NUMBER", seq)}}") shouldBe AfterSequence(seq)
    position(s"{${qubole("AT_SEQUENCE_NUMBER", seq)}}") shouldBe AtSequence(seq)
    position(s"{${qubole("AT_TIMESTAMP", "1593105825000")}}") shouldBe AtTimestamp(1593105825000L)
    position(s"{${qubole("SHARD_END")}}") shouldBe ShardEnd(None)
    // Nothing read yet from LATEST: the records from when the batch was planned on were not delivered.
    position(s"{${qubole("LATEST")}}") shouldBe AtTimestamp(planned)
  }

  test("awslabs' place inside a KPL aggregate is kept, and a whole aggregate read is after the record") {
    position(s"{${awslabs("AFTER_SEQUENCE_NUMBER", seq, sub = 2, isLast = false)}}") shouldBe AfterSequence(seq,
      Some(2))
    position(s"{${awslabs("AFTER_SEQUENCE_NUMBER", seq, sub = 4, isLast = true)}}") shouldBe AfterSequence(seq)
    position(s"{${awslabs("AFTER_SEQUENCE_NUMBER", seq)}}") shouldBe AfterSequence(seq)
    // At user record 3: user records 0 to 2 were read.
    position(s"{${awslabs("AT_SEQUENCE_NUMBER", seq, sub = 3, isLast = false)}}") shouldBe AfterSequence(seq, Some(2))
    position(s"{${awslabs("AT_SEQUENCE_NUMBER", seq, sub = 0, isLast = false)}}") shouldBe AtSequence(seq)
    position(shardInfo(s0, "AFTER_SEQUENCE_NUMBER", seq, sub = Some(1), isLast = false)) shouldBe
      AfterSequence(seq, Some(1))
  }

  test("a position that cannot be read names where it is and what is allowed") {
    the[ForeignPositionError] thrownBy position(s"{${qubole("FROM_HERE", seq)}}") should have message
      "offsets/3, shard x has the iteratorType FROM_HERE; known are TRIM_HORIZON, LATEST, AT_TIMESTAMP, " +
      "AT_SEQUENCE_NUMBER, AFTER_SEQUENCE_NUMBER, SHARD_END"
    the[ForeignPositionError] thrownBy position(s"{${qubole("AFTER_SEQUENCE_NUMBER", "49x")}}") should have message
      "offsets/3, shard x: AFTER_SEQUENCE_NUMBER needs a decimal sequence number as iteratorPosition, not '49x'"
    the[ForeignPositionError] thrownBy position(s"{${qubole("AT_TIMESTAMP", "yesterday")}}") should have message
      "offsets/3, shard x: AT_TIMESTAMP needs epoch milliseconds as iteratorPosition, not 'yesterday'"
    the[ForeignPositionError] thrownBy position("""{"iteratorPosition":"1"}""") should have message
      "offsets/3, shard x has no iteratorType"
  }

  test("a line of another source (this connector's, Kafka's) is not taken for one of theirs") {
    ForeignPositions.offsetLine("""{"version":1,"shards":{}}""", "x", planned) shouldBe None
    ForeignPositions.offsetLine("""{"orders":{"0":42}}""", "x", planned) shouldBe None
    ForeignPositions.offsetLine(line("s", 7, s0 -> qubole("TRIM_HORIZON")), "x", planned) shouldBe
      Some(ForeignOffset("s", 7, Map(s0 -> TrimHorizon)))
  }

  test("qubole: the files of the last committed batch say where each shard stopped; a planned batch is ignored") {
    val old = checkpoint()
      .offsets(3, planned,
        line("orders", 3, s0 -> qubole("TRIM_HORIZON"), s1 -> qubole("AFTER_SEQUENCE_NUMBER", seq),
          s2 -> qubole("SHARD_END"))).commit(3)
      .shardFile("sources/0/shard-commit", 3, s0, shardInfo(s0, "AFTER_SEQUENCE_NUMBER", seq))
      .shardFile("sources/0/shard-commit", 3, s1, shardInfo(s1, "AFTER_SEQUENCE_NUMBER", later))
      // Batch 4 read further but was not committed: Spark reads it again, so nothing of it counts.
      .offsets(4, planned + 1,
        line("orders", 4, s0 -> qubole("AFTER_SEQUENCE_NUMBER", seq),
          s1 -> qubole("AFTER_SEQUENCE_NUMBER", later)))
      .shardFile("sources/0/shard-commit", 4, s0, shardInfo(s0, "SHARD_END"))
    val progress = read(old, ForeignConnector.Qubole)
    progress.stream shouldBe "orders"
    progress.batch shouldBe 3
    progress.positions shouldBe Map(s0 -> AfterSequence(seq), s1 -> AfterSequence(later), s2 -> ShardEnd(None))
    progress.notes shouldBe empty
  }

  test("awslabs: its own metadata path, and a shard whose task wrote no file continues where the batch started") {
    val old = checkpoint()
      .offsets(0, planned, line("orders", 0, s0 -> awslabs("TRIM_HORIZON"), s1 -> awslabs("TRIM_HORIZON"))).commit(0)
      .offsets(1, planned,
        line("orders", 1, s0 -> awslabs("AFTER_SEQUENCE_NUMBER", seq, 1, isLast = false),
          s1 -> awslabs("AT_TIMESTAMP", "1593105825000"))).commit(1)
      .shardFile("elsewhere/shard-source", 1, s0, shardInfo(s0, "AFTER_SEQUENCE_NUMBER", seq, Some(5), isLast = true))
    val moved = the[ToolError] thrownBy read(old, ForeignConnector.Awslabs)
    moved.getMessage should include(s"${old.root}/sources/0/shard-source/1 does not exist or is empty, but batch 1 " +
      s"read the shards $s0, $s1")
    moved.getMessage should include("If the old query set kinesis.metadataPath, give that path as --metadata-path")
    moved.usage shouldBe false

    val progress = read(old, ForeignConnector.Awslabs, metadataPath = Some(s"${old.root}/elsewhere"))
    progress.positions shouldBe Map(s0 -> AfterSequence(seq), s1 -> AtTimestamp(1593105825000L))
    progress.notes should have size 1
    progress.notes.head should startWith(s"$s1: no file for batch 1 in ")
  }

  test("the source of the stream asked for is found among the query's sources, with its own folder") {
    val old = checkpoint()
      .offsets(0, planned, line("a", 0, s0 -> qubole("TRIM_HORIZON")), "-",
        line("b", 0, s0 -> qubole("AFTER_SEQUENCE_NUMBER", seq))).commit(0)
      .shardFile("sources/0/shard-commit", 0, s0, shardInfo(s0, "AFTER_SEQUENCE_NUMBER", seq))
      .shardFile("sources/2/shard-commit", 0, s0, shardInfo(s0, "AFTER_SEQUENCE_NUMBER", later))
    read(old, ForeignConnector.Qubole, Some("b")).positions shouldBe Map(s0 -> AfterSequence(later))
    read(old, ForeignConnector.Qubole, Some("a")).positions shouldBe Map(s0 -> AfterSequence(seq))
    val several = the[ToolError] thrownBy read(old, ForeignConnector.Qubole)
    several.getMessage shouldBe s"the checkpoint ${old.root} reads several streams ('a', 'b'): name one with --stream"
    several.usage shouldBe true
    the[ToolError] thrownBy read(old, ForeignConnector.Qubole, Some("c")) should have message
      s"--stream c: the checkpoint ${old.root} is of another stream; its qubole sources read 'a', 'b'"
  }

  test("a folder that is no checkpoint, or one with nothing committed, is refused saying what was expected") {
    val missing = s"${Files.createTempDirectory("x")}/nothing-here"
    the[ToolError] thrownBy new SparkCheckpoint(missing) should have message
      s"the checkpoint $missing does not exist: give the old query's checkpointLocation"
    (the[ToolError] thrownBy new SparkCheckpoint("nosuchfs://bucket/chk")).getMessage should include(
      "cannot open the checkpoint nosuchfs://bucket/chk: ")
    val empty = checkpoint()
    (the[ToolError] thrownBy new SparkCheckpoint(empty.toString)).getMessage should include(
      "is not a Spark streaming checkpoint: it has no offsets folder")
    val planning = empty.offsets(0, planned, line("s", 0, s0 -> qubole("TRIM_HORIZON")))
    (the[ToolError] thrownBy read(planning, ForeignConnector.Qubole)).getMessage should include(
      "was committed (its commits folder is empty or missing): it has no progress to carry over")
  }

  test("a checkpoint of this connector, or of the other foreign connector's kind, says what it is") {
    val own = checkpoint().offsets(0, planned, """{"version":1,"shards":{"s":{}}}""").commit(0)
    (the[ToolError] thrownBy read(own, ForeignConnector.Awslabs)).getMessage should include(
      "holds no offset of the awslabs connector (awslabs/spark-sql-kinesis-connector): it is a checkpoint of this " +
        "connector; see it with: offsets show")
    val newer = checkpoint().write("offsets/0", "v3\n{}\n{}").commit(0)
    (the[ToolError] thrownBy read(newer, ForeignConnector.Qubole)).getMessage should include(
      "is in offset log version v3; this tool reads versions v1 and v2")
  }
}
