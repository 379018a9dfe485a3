// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.tools

import java.io.{ByteArrayOutputStream, PrintStream}
import java.nio.charset.StandardCharsets
import java.nio.file.Files

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.FakeKinesisApi
import io.github.sparkkinesis.client.KinesisApi
import io.github.sparkkinesis.offsets.{KinesisOffsetJson, KinesisSourceOffset, ShardKey}
import io.github.sparkkinesis.offsets.ShardPosition.{AfterSequence, AtTimestamp, ShardEnd, TrimHorizon}
import io.github.sparkkinesis.options.{InitialPosition, KinesisSourceOptions, OptionValues}

/** The offsets tool's command line: its commands, what they print, and its exit codes. */
class OffsetsToolSuite extends AnyFunSuite with Matchers {
  import OffsetsToolSuite.Result
  import OldCheckpoints._

  private def run(args: String*)(implicit api: KinesisApi = new FakeKinesisApi): Result = {
    val (out, err) = (new ByteArrayOutputStream, new ByteArrayOutputStream)
    val code = OffsetsTool.run(args, new PrintStream(out, true, "UTF-8"), new PrintStream(err, true, "UTF-8"),
      _ => api)
    Result(code, out.toString(StandardCharsets.UTF_8.name), err.toString(StandardCharsets.UTF_8.name))
  }

  private val planned = 1764187200000L
  private val seq = "49590338271490256608559692538361571095921575989136588898"
  private val s0 = "shardId-000000000000"
  private val s1 = "shardId-000000000001"

  private def checkpoint() = new OldCheckpoints(Files.createTempDirectory("checkpoint"))

  test("bad usage exits with 2 and says what is expected; help exits with 0") {
    run().code shouldBe OffsetsTool.ExitUsage
    run().err should include("error: give a command: at-timestamp, import, show")
    run("list").err should include("error: unknown command 'list'; the commands are at-timestamp, import, show")
    run("import", "/tmp/x").err should include("error: import needs --from, one of qubole, awslabs")
    val kafka = run("import", "/tmp/x", "--from", "kafka")
    kafka.code shouldBe OffsetsTool.ExitUsage
    kafka.err should include("--from kafka: the connectors whose progress can be imported are qubole " +
      "(qubole/kinesis-sql), awslabs (awslabs/spark-sql-kinesis-connector)")
    run("show", "/a", "/b").err should include("error: show takes one CHECKPOINT, not 2: /a /b")
    run("show").err should include("error: show needs its CHECKPOINT argument")
    run("show", "/a", "--from", "qubole").err should include(
      "error: show takes no --from; it takes --endpoint-url, --region")
    run("show", "/a", "--region").err should include("error: --region needs a value")
    val help = run("import", "--help")
    help.code shouldBe OffsetsTool.ExitOk
    help.out should include("usage: offsets show CHECKPOINT")
  }

  test("import prints initialPosition JSON the source accepts, continuing after the committed records") {
    val old = checkpoint()
      .offsets(0, planned, line("orders", 0, s0 -> qubole("TRIM_HORIZON"), s1 -> qubole("TRIM_HORIZON"))).commit(0)
      .shardFile("sources/0/shard-commit", 0, s0, shardInfo(s0, "AFTER_SEQUENCE_NUMBER", seq))
      .shardFile("sources/0/shard-commit", 0, s1, shardInfo(s1, "SHARD_END"))
    val result = run("import", old.toString, "--from", "qubole")
    result.code shouldBe OffsetsTool.ExitOk
    val json = result.out.trim
    KinesisOffsetJson.read(json).shards shouldBe
      Map(ShardKey("orders", s0) -> AfterSequence(seq), ShardKey("orders", s1) -> ShardEnd(None))
    KinesisSourceOptions.parse(Map("streamName" -> "orders", "region" -> "us-east-1",
        "initialPosition" -> json)).initialPosition shouldBe
      InitialPosition.Positions(KinesisOffsetJson.read(json))
    result.err should include(s"qubole checkpoint $old: stream 'orders', batch 0 committed; 2 shards, 1 of them " +
      "read to their end. Start the new query with a new checkpointLocation")
  }

  test("a checkpoint that is not there fails with 1, naming it") {
    val missing = s"${Files.createTempDirectory("x")}/gone"
    val result = run("import", missing, "--from", "awslabs")
    result.code shouldBe OffsetsTool.ExitFailed
    result.err.trim shouldBe s"error: the checkpoint $missing does not exist: give the old query's checkpointLocation"
  }

  test("show lists the committed positions, and how far behind each shard is only when asked") {
    implicit val api: FakeKinesisApi = new FakeKinesisApi().createStream("orders", 3)
    val seqs = api.put("orders", s0, "a", "b", "c")
    val ours = KinesisSourceOffset(Map(ShardKey("orders", s0) -> AfterSequence(seqs.head),
        ShardKey("orders", s1) -> TrimHorizon, ShardKey("orders", "shardId-000000000002") -> ShardEnd(Some(seq))))
    val own = checkpoint().offsets(2, planned, ours.json()).commit(2).offsets(3, planned + 1000, ours.json())

    val plain = run("show", own.toString)
    plain.code shouldBe OffsetsTool.ExitOk
    plain.out should include(s"Checkpoint $own: batch 2 committed, planned at 2025-11-26T20:00:00Z.")
    plain.out should include("Batch 3 is planned but not committed: the query reads it again when it restarts.")
    plain.out should include(s"orders  shardId-000000000000  after ${seqs.head}")
    plain.out should include(s"orders  shardId-000000000002  end (read to its last record, $seq)")
    plain.out should not include "BEHIND"
    plain.out should include("How far behind each shard is: not asked; give --region or --endpoint-url")

    val asked = run("show", own.toString, "--region", "us-east-1", "--endpoint", "http://localhost:4567")
    asked.code shouldBe OffsetsTool.ExitOk
    val behind = asked.out.split("\n").filter(_.startsWith("orders")).map(_.split("  +").toSeq)
      .map(row => row(1) -> row.last).toMap
    behind(s0) should fullyMatch regex "[1-9][0-9]* ms"
    behind(s1) shouldBe "0 ms"
    behind("shardId-000000000002") shouldBe "-"
    asked.out should not include "not asked"
  }

  test("show says when how far behind a shard is cannot be found, once below the table") {
    implicit val api: FakeKinesisApi = new FakeKinesisApi().createStream("orders", 1)
    val ours = KinesisSourceOffset(Map(ShardKey("orders", s0) -> TrimHorizon, ShardKey("gone", s0) -> TrimHorizon))
    val own = checkpoint().offsets(0, planned, ours.json()).commit(0)
    val result = run("show", own.toString, "--region", "us-east-1")
    result.code shouldBe OffsetsTool.ExitOk
    val behind = result.out.split("\n").filter(l => l.startsWith("orders") || l.startsWith("gone"))
      .map(_.split("  +").toSeq).map(row => row.head -> row.last).toMap
    behind shouldBe Map("orders" -> "0 ms", "gone" -> "unknown")
    result.out should include("How far behind 1 shard(s) are is unknown: ")
  }

  test("show of another connector's checkpoint points to import") {
    val old = checkpoint().offsets(0, planned, line("orders", 0, s0 -> qubole("TRIM_HORIZON"))).commit(0)
    val result = run("show", old.toString)
    result.code shouldBe OffsetsTool.ExitFailed
    result.err should include(s"it looks like a qubole or awslabs checkpoint; carry its progress over with offsets " +
      s"import $old --from qubole|awslabs")
  }

  test("at-timestamp prints the at_timestamp JSON the source reads back to the same instant") {
    val iso = run("at-timestamp", "2025-11-26T21:00:00.250+01:00")
    iso.code shouldBe OffsetsTool.ExitOk
    iso.out.trim shouldBe """{"at_timestamp": "2025-11-26T20:00:00.250Z", "format": "yyyy-MM-dd'T'HH:mm:ss.SSSX"}"""
    OptionValues.parseAtTimestamp(iso.out.trim) shouldBe Right(planned + 250)
    OptionValues.parseAtTimestamp(run("at-timestamp", planned.toString).out.trim) shouldBe Right(planned)
    val bad = run("at-timestamp", "yesterday")
    bad.code shouldBe OffsetsTool.ExitUsage
    bad.err should include("TIME 'yesterday' is neither an ISO 8601 time with its zone")
  }

  test("at-timestamp per stream names every shard of the streams given") {
    implicit val api: FakeKinesisApi = new FakeKinesisApi().createStream("a", 2).createStream("b", 1)
    val result = run("at-timestamp", planned.toString, "--stream", "a,b", "--region", "us-east-1")
    result.code shouldBe OffsetsTool.ExitOk
    KinesisOffsetJson.read(result.out.trim).shards shouldBe Map(
      ShardKey("a", s0) -> AtTimestamp(planned), ShardKey("a", s1) -> AtTimestamp(planned),
      ShardKey("b", s0) -> AtTimestamp(planned))
  }

  test("a region that does not exist is bad usage naming --region") {
    val result = run("show", "/x", "--region", "nowhere")
    result.code shouldBe OffsetsTool.ExitUsage
    result.err should include("error: --region/--endpoint-url: ")
    result.err should include("nowhere")
  }
}

object OffsetsToolSuite {
  final case class Result(code: Int, out: String, err: String)
}
