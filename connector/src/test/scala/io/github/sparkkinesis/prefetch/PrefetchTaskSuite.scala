package io.github.sparkkinesis.prefetch

import java.util.UUID

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.client.{KinesisRecord, RecordBatch}
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.options.FetchSettings
import io.github.sparkkinesis.reader.ShardReader

/** What a prefetch task tells the driver about its shards. */
class PrefetchTaskSuite extends AnyFunSuite with Matchers {

  /** A reader answering the given MillisBehindLatest values in turn, without records. */
  private final class ScriptedReader(val shard: ShardKey, behind: Seq[Long]) extends ShardReader {
    private var answers = behind.toList
    override val position: ShardPosition = ShardPosition.AfterSequence("100")
    override def isEnded: Boolean = false
    override def atTip: Boolean = answers.isEmpty
    override def throttleEvents: Int = 0
    override def fetch(): RecordBatch = {
      val next = answers.headOption.getOrElse(0L)
      answers = answers.drop(1)
      RecordBatch(Nil, Some("next"), next)
    }
    override def close(): Unit = ()
  }

  private object Sink extends BlockSink {
    override def put(name: String, records: Array[KinesisRecord]): Option[String] = Some(location)
    override def location: String = "executor_host_1"
  }

  private val shard = ShardKey("clicks", "shardId-000000000000")

  private def behindAfter(answers: Seq[Long]): Long = {
    val instance = UUID.randomUUID().toString
    val work = PrefetchWork(instance, 7, FetchSettings(100, 2.0, 0L, 60000L), 1024L, None, returnWhenCaughtUp = true)
    try {
      PrefetchTask.run(_ => new ScriptedReader(shard, answers),
        Seq(ShardFetchRequest(shard, ShardPosition.AfterSequence("100"))),
        work, store = Sink).status.head.millisBehindLatest
    } finally ExecutorCursors.forget(instance)
  }

  test("an unknown MillisBehindLatest (an EFO subscription before its first event) is not reported as a lag") {
    behindAfter(Seq(-1L)) shouldBe Long.MaxValue // unknown: left out of the *MsBehindLatest metrics
    behindAfter(Seq(-1L, 2500L, -1L)) shouldBe 2500L
    behindAfter(Seq(3000L, 0L)) shouldBe 0L
  }
}
