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

  /** A reader at the tip after every fetch, answering `perFetch` new records each time. */
  private final class TrickleReader(val shard: ShardKey, perFetch: Int) extends ShardReader {
    private var next = 0
    override def position: ShardPosition =
      if (next == 0) ShardPosition.AfterSequence("100") else ShardPosition.AfterSequence((next - 1).toString)
    override def isEnded: Boolean = false
    override def atTip: Boolean = true
    override def throttleEvents: Int = 0
    override def fetch(): RecordBatch = {
      val records = (next until next + perFetch).map(i => KinesisRecord("k", Array[Byte](1), i.toString, 0L))
      next += perFetch
      RecordBatch(records, Some("next"), 0L)
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

  test("a task that reports to the driver hands over what it read at the tip, and reads on until told to stop") {
    val instance = UUID.randomUUID().toString
    val work = PrefetchWork(instance, 7, FetchSettings(100, 2.0, 0L, 60000L), 1L << 20, None,
      returnWhenCaughtUp = false, reportTo = Some("driver"))
    val reports = scala.collection.mutable.ArrayBuffer.empty[PrefetchResult]
    val last =
      try {
        PrefetchTask.run(_ => new TrickleReader(shard, 2),
          Seq(ShardFetchRequest(shard, ShardPosition.AfterSequence("100"))),
          work, store = Sink, report = Some { (r: PrefetchResult) => reports += r; reports.size < 3 })
      } finally ExecutorCursors.forget(instance)
    reports.map(_.blocks.map(_.records)) shouldBe Seq(Seq(2), Seq(2), Seq(2))
    // Each part continues where the one before ended: the driver's chain stays whole.
    val blocks = reports.flatMap(_.blocks)
    blocks.map(_.from) shouldBe ShardPosition.AfterSequence("100") +: blocks.init.map(_.to)
    reports.last.status.map(_.position) shouldBe Seq(ShardPosition.AfterSequence("5"))
    last.blocks shouldBe empty // all was handed over before the driver said stop
  }
}
