// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import java.nio.ByteBuffer
import java.util.UUID
import java.util.concurrent.{ConcurrentHashMap, Semaphore}
import java.util.concurrent.atomic.AtomicLong

import scala.collection.mutable

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.FakeClock
import io.github.sparkkinesis.client.{KinesisRecord, RecordBatch}
import io.github.sparkkinesis.efo.{
  FakeSubscriptionTransport, SubscribeLimiter, SubscriptionCursor, SubscriptionShardReader
}
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.options.FetchSettings
import io.github.sparkkinesis.reader.ShardReader
import io.github.sparkkinesis.threads.Doorbell
import io.github.sparkkinesis.time.Clock

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
  private class TrickleReader(val shard: ShardKey, perFetch: Int) extends ShardReader {
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
    override def put(name: String, block: Array[ByteBuffer]): Option[String] = Some(location)
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

  test("a task that starts after its query stopped makes no reader: it calls Kinesis for nothing") {
    val instance = UUID.randomUUID().toString
    ExecutorCursors.forget(instance) // the stop, heard on this executor before the task started
    val work = PrefetchWork(instance, 7, FetchSettings(100, 2.0, 0L, 60000L), 1024L, None, returnWhenCaughtUp = true)
    var made = 0
    val result = PrefetchTask.run(_ => { made += 1; new TrickleReader(shard, 5) },
      Seq(ShardFetchRequest(shard, ShardPosition.AfterSequence("100"))), work, store = Sink)
    made shouldBe 0
    result.blocks shouldBe empty
    ExecutorCursors.cached(instance) shouldBe empty
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
          work, store = Sink, report = Some { (r: PrefetchResult) => reports += r; HandOverReply(reports.size < 3) })
      } finally ExecutorCursors.forget(instance)
    reports.map(_.blocks.map(_.records)) shouldBe Seq(Seq(2), Seq(2), Seq(2))
    // Each part continues where the one before ended: the driver's chain stays whole.
    val blocks = reports.flatMap(_.blocks)
    blocks.map(_.from) shouldBe ShardPosition.AfterSequence("100") +: blocks.init.map(_.to)
    reports.last.status.map(_.position) shouldBe Seq(ShardPosition.AfterSequence("5"))
    last.blocks shouldBe empty // all was handed over before the driver said stop
  }

  /** A shard at its tip with nothing new, a call a second on `clock`; it reaches its end at `endsAtMs`, if given. */
  private final class IdleReader(val shard: ShardKey, clock: FakeClock, endsAtMs: Option[Long] = None)
    extends ShardReader {
    private val startMs = clock.nowMillis
    private def ended = endsAtMs.exists(clock.nowMillis - startMs >= _)
    override def position: ShardPosition =
      if (ended) ShardPosition.ShardEnd(Some("100")) else ShardPosition.AfterSequence("100")
    override def isEnded: Boolean = ended
    override def atTip: Boolean = true
    override def throttleEvents: Int = 0
    override def fetch(): RecordBatch = {
      clock.advanceMillis(1000)
      RecordBatch(Nil, if (ended) None else Some("next"), 0L)
    }
    override def close(): Unit = ()
  }

  private def idleJob(readers: Seq[IdleReader], clock: FakeClock, keepReading: PrefetchResult => Boolean)
      : (Seq[(Long, PrefetchResult)], Long) = {
    val instance = UUID.randomUUID().toString
    val work = PrefetchWork(instance, 7, FetchSettings(100, 2.0, 0L, 3000L), 1L << 20, None,
      returnWhenCaughtUp = false, reportTo = Some("driver"), jobMs = 10000L)
    val started = clock.nowMillis
    val reports = mutable.ArrayBuffer.empty[(Long, PrefetchResult)]
    try {
      PrefetchTask.run(r => readers.find(_.shard == r.shard).get,
        readers.map(r =>
          ShardFetchRequest(r.shard,
            ShardPosition.AfterSequence("100"))), work, clock, Sink,
        report = Some { (r: PrefetchResult) =>
          reports += (clock.nowMillis - started) -> r; HandOverReply(keepReading(r))
        })
    } finally ExecutorCursors.forget(instance)
    (reports.toSeq, clock.nowMillis - started)
  }

  test("a task that reports reads for its whole job, handing over at least every maxFetchDuration with nothing new") {
    val clock = new FakeClock
    val (reports, tookMs) = idleJob(Seq(new IdleReader(shard, clock)), clock, _ => true)
    // One Spark job for the 10 s, not one per maxFetchDuration (3 s); the driver hears of the shard every 3 s.
    reports.map(_._1) shouldBe Seq(3000L, 6000L, 9000L)
    reports.foreach { case (_, r) => r.status.map(_.millisBehindLatest) shouldBe Seq(0L) }
    tookMs shouldBe 10000L
  }

  test("the driver ends a reporting task's job at a hand-over; a shard reaching its end is handed over at once") {
    val clock = new FakeClock
    val (stopped, _) = idleJob(Seq(new IdleReader(shard, clock)), clock, _ => false)
    stopped.map(_._1) shouldBe Seq(3000L)
    val other = ShardKey("clicks", "shardId-000000000001")
    val (reports, _) = idleJob(Seq(new IdleReader(shard, clock, endsAtMs = Some(1000L)), new IdleReader(other, clock)),
      clock, r => !r.blocks.exists(_.to.isInstanceOf[ShardPosition.ShardEnd]))
    // Both shards at the tip and one at its end: the driver learns of it within the pass, not 3 s later.
    reports.map(_._1) shouldBe Seq(2000L)
    reports.head._2.blocks.map(b => (b.shard, b.to)) shouldBe Seq(shard -> ShardPosition.ShardEnd(Some("100")))
  }

  test("a reply to a hand-over sets the pace of the task's shards at their tip, for the rest of its job") {
    val instance = UUID.randomUUID().toString
    val work = PrefetchWork(instance, 7, FetchSettings(100, 2.0, 0L, 60000L), 1L << 20, None,
      returnWhenCaughtUp = false, reportTo = Some("driver"), tipFetchPeriodMs = 500L)
    final class PacedReader extends TrickleReader(shard, 1) {
      val paces = mutable.ArrayBuffer.empty[Long]
      override def paceAtTip(periodMs: Long): Unit = paces += periodMs
    }
    val reader = new PacedReader
    var reports = 0
    try {
      PrefetchTask.run(_ => reader, Seq(ShardFetchRequest(shard, ShardPosition.AfterSequence("100"))), work,
        store = Sink,
        report = Some { _ =>
          reports += 1
          HandOverReply(reports < 3, tipFetchPeriodMs = if (reports == 1) 2000L else 0L)
        })
    } finally ExecutorCursors.forget(instance)
    reader.paces shouldBe Seq(500L, 2000L) // the round's, then the driver's; 0 leaves it
  }

  /** A clock whose time moves only as it is waited on, running `arrivals` as its time passes theirs. */
  private final class ArrivalsClock extends Clock {
    private var now = 0L
    private val arrivals = mutable.TreeMap.empty[Long, () => Unit]

    def at(millis: Long)(arrive: => Unit): Unit = synchronized(arrivals(millis * 1000000L) = () => arrive)
    def nowMillis: Long = synchronized(now / 1000000L)
    override def nanoTime(): Long = synchronized(now)
    override def sleepNanos(nanos: Long): Unit = synchronized(passUntil(now + nanos, None))
    override def awaitSignal(signal: Semaphore, nanos: Long): Boolean = synchronized {
      signal.tryAcquire() || passUntil(now + nanos, Some(signal))
    }

    /** Moves time to `end`, running the arrivals on the way; stops at one that releases `signal`. */
    private def passUntil(end: Long, signal: Option[Semaphore]): Boolean = {
      while (arrivals.headOption.exists(_._1 <= end)) {
        val (time, arrive) = arrivals.head
        arrivals -= time
        now = math.max(now, time)
        arrive()
        if (signal.exists(_.tryAcquire())) return true
      }
      now = math.max(now, end)
      false
    }
  }

  /** Counts the fetches of `reader`, and refuses to go on past `most` of them. */
  private final class CountedReader(reader: ShardReader, most: Int) extends ShardReader {
    var fetches = 0
    override def shard: ShardKey = reader.shard
    override def position: ShardPosition = reader.position
    override def isEnded: Boolean = reader.isEnded
    override def atTip: Boolean = reader.atTip
    override def throttleEvents: Int = reader.throttleEvents
    override def pushed: Boolean = reader.pushed
    override def wakeOnArrival(bell: Doorbell): Unit = reader.wakeOnArrival(bell)
    override def fetch(): RecordBatch = {
      fetches += 1
      if (fetches > most) throw new IllegalStateException(s"$shard was fetched more than $most times")
      reader.fetch()
    }
    override def close(): Unit = reader.close()
  }

  test("a task whose shards are pushed their records (EFO) waits at the tip for all of them at once: " +
    "it reads them once per tip period, not at each empty event, and at once when records arrive") {
    val clock = new ArrivalsClock
    val other = ShardKey("clicks", "shardId-000000000001")
    // Caught up, the first shard's subscription sends an empty event whenever asked: a task that woke for
    // them would never sleep. The other's sends only records, one at first, three at 4.5 s.
    val transports = Map(shard -> new FakeSubscriptionTransport(new FakeClock),
      other -> new FakeSubscriptionTransport(new FakeClock, heartbeats = false))
    transports(other).put(1)
    val limiter = new SubscribeLimiter(SubscribeLimiter.MinSpacingMs, clock)
    val readers = transports.map { case (s, transport) =>
      val cursor = new SubscriptionCursor(transport, s, "arn:consumer", ShardPosition.TrimHorizon, limiter = limiter,
        clock = clock)
      s -> new CountedReader(new SubscriptionShardReader(cursor, maxWaitMs = 100L), most = 1000)
    }
    clock.at(4500L) {
      transports(other).put(3)
      transports(other).pump()
    }
    val instance = UUID.randomUUID().toString
    val work = PrefetchWork(instance, 7, FetchSettings(100, 2.0, 0L, 3000L), 1L << 20, None,
      returnWhenCaughtUp = false, consumers = Map("clicks" -> "arn:consumer"), reportTo = Some("driver"),
      tipFetchPeriodMs = 1000L, jobMs = 10000L)
    val reports = mutable.ArrayBuffer.empty[(Long, Map[ShardKey, Int])]
    try {
      PrefetchTask.run(r => readers(r.shard), Seq(shard, other).map(ShardFetchRequest(_, ShardPosition.TrimHorizon)),
        work, clock, Sink,
        report = Some { (r: PrefetchResult) =>
          reports += clock.nowMillis -> r.blocks.groupBy(_.shard).map { case (s, b) => s -> b.map(_.records).sum }
          HandOverReply(keepReading = true)
        })
    } finally ExecutorCursors.forget(instance)
    // A call a shard a second for the 10-s job, and one at the start, at each hand-over (every 3 s)
    // and at the arrival.
    readers.values.foreach(_.fetches should be <= 16)
    // The records that arrived at 4.5 s are handed over then, not at the next tip period.
    reports.collect { case (at, records) if records.nonEmpty => at -> records } shouldBe
      Seq(0L -> Map(other -> 1), 4500L -> Map(other -> 3))
  }

  /** A reader handing out the given fetches' records in turn, then reaching the tip. */
  private final class RecordsReader(val shard: ShardKey, fetches: Seq[Seq[KinesisRecord]]) extends ShardReader {
    private var left = fetches.toList
    var position: ShardPosition = ShardPosition.AfterSequence("100")
    override def isEnded: Boolean = false
    override def atTip: Boolean = left.isEmpty
    override def throttleEvents: Int = 0
    override def fetch(): RecordBatch = {
      val records = left.headOption.getOrElse(Nil)
      left = left.drop(1)
      records.lastOption.foreach(r => position = r.positionAfter)
      RecordBatch(records, Some("next"), if (left.isEmpty) 0L else 1000L)
    }
    override def close(): Unit = ()
  }

  private final class KeepingSink extends BlockSink {
    val blocks = mutable.LinkedHashMap.empty[String, Array[KinesisRecord]]
    override def put(name: String, block: Array[ByteBuffer]): Option[String] = {
      blocks(name) = RecordBlock.decode(block)
      Some(location)
    }
    override def location: String = "executor_host_1"
  }

  private def record(seq: Int, arrival: Long, key: String = "k", sub: Long = 0L, ends: Boolean = true) =
    KinesisRecord(key, s"data-$seq".getBytes("UTF-8"), (1000 + seq).toString, arrival, sub, ends)

  private def prefetch(fetches: Seq[Seq[KinesisRecord]], splitAt: Option[Long],
      cut: BlockCut = BlockCut.None): (Seq[PrefetchedBlock], KeepingSink) = {
    val instance = UUID.randomUUID().toString
    val work = PrefetchWork(instance, 7, FetchSettings(100, 2.0, 0L, 60000L), 1L << 20, splitAt,
      returnWhenCaughtUp = true, blockCut = cut)
    val sink = new KeepingSink
    try {
      val result = PrefetchTask.run(_ => new RecordsReader(shard, fetches),
        Seq(ShardFetchRequest(shard, ShardPosition.AfterSequence("100"))), work, store = sink)
      (result.blocks, sink)
    } finally ExecutorCursors.forget(instance)
  }

  test("the records of every fetch are stored in one block, in order, with what the driver accounts them by") {
    val first = Seq(record(1, 10L, key = "clé"), record(2, 11L, sub = 0L, ends = false), record(2, 11L, sub = 1L))
    val second = Seq(record(3, 12L, key = "k" * 300))
    val (blocks, sink) = prefetch(Seq(first, second), None)
    blocks should have size 1
    val block = blocks.head
    block.from shouldBe ShardPosition.AfterSequence("100")
    block.to shouldBe ShardPosition.AfterSequence("1003")
    block.records shouldBe 4
    block.bytes shouldBe (first ++ second).map(r => r.data.length.toLong + r.partitionKey.getBytes("UTF-8").length).sum
    (block.firstArrivalMillis, block.lastArrivalMillis) shouldBe ((10L, 12L))
    sink.blocks(block.blockName.get).map(r =>
      (r.partitionKey, new String(r.data, "UTF-8"), r.sequenceNumber,
        r.approximateArrivalMillis, r.subSequenceNumber, r.endsKinesisRecord)) shouldBe (first ++ second).map(r =>
      (r.partitionKey, new String(r.data, "UTF-8"), r.sequenceNumber, r.approximateArrivalMillis,
        r.subSequenceNumber, r.endsKinesisRecord))
  }

  test(
    "Trigger.AvailableNow's instant splits the records into two chained blocks, from the first that arrived after it") {
    // Record 4 arrived before the instant but after record 3: it is read after the instant too.
    val (blocks, sink) =
      prefetch(Seq(Seq(record(1, 10L), record(2, 19L)), Seq(record(3, 20L), record(4, 15L))), Some(20L))
    blocks.map(b => sink.blocks(b.blockName.get).map(_.sequenceNumber).toSeq) shouldBe
      Seq(Seq("1001", "1002"), Seq("1003", "1004"))
    blocks.map(b => (b.from, b.to)) shouldBe Seq(
      ShardPosition.AfterSequence("100") -> ShardPosition.AfterSequence("1002"),
      ShardPosition.AfterSequence("1002") -> ShardPosition.AfterSequence("1004"))
    blocks.map(b => (b.firstArrivalMillis, b.lastArrivalMillis)) shouldBe Seq((10L, 19L), (20L, 15L))
  }

  test("under batch limits blocks are cut to the limit's share, inside a KPL aggregate after a user record") {
    // Record 2 is an aggregate of three user records: a cut after its second leaves the third for the next block.
    val aggregate = Seq(record(2, 11L, sub = 0L, ends = false), record(2, 11L, sub = 1L, ends = false),
      record(2, 11L, sub = 2L))
    val (blocks, sink) = prefetch(Seq(Seq(record(1, 10L)) ++ aggregate, Seq(record(3, 12L))), None, BlockCut(2, 1000))
    blocks.map(b => sink.blocks(b.blockName.get).map(r => (r.sequenceNumber, r.subSequenceNumber)).toSeq) shouldBe
      Seq(Seq(("1001", 0L), ("1002", 0L)), Seq(("1002", 1L), ("1002", 2L)), Seq(("1003", 0L)))
    blocks.map(b => (b.from, b.to)) shouldBe Seq(
      ShardPosition.AfterSequence("100") -> ShardPosition.AfterSequence("1002", Some(0L)),
      ShardPosition.AfterSequence("1002", Some(0L)) -> ShardPosition.AfterSequence("1002"),
      ShardPosition.AfterSequence("1002") -> ShardPosition.AfterSequence("1003"))
    blocks.map(_.records) shouldBe Seq(2, 2, 1)
    // By bytes: each record's data ("data-N", 6 bytes) and key ("k"), 7 bytes: two fit in 14.
    prefetch(Seq(Seq(record(1, 10L), record(2, 10L), record(3, 10L))), None, BlockCut(100, 14))._1.map(
      _.records) shouldBe
      Seq(2, 1)
  }

  test("a block larger than a chunk of the layout holds every record, even one larger than a chunk") {
    val sizes = Seq(RecordBlock.ChunkLength / 2, RecordBlock.ChunkLength + 10, RecordBlock.ChunkLength / 2)
    val big = sizes.zipWithIndex.map { case (size, i) =>
      KinesisRecord("k", Array.fill(size)(i.toByte), (1000 + i).toString, 1L)
    }
    val (blocks, sink) = prefetch(Seq(big), None)
    sink.blocks(blocks.head.blockName.get).map(_.data.toSeq).toSeq shouldBe big.map(_.data.toSeq)
  }

  test("a task reading faster than it reaches the tip stores what it holds every handOverBytes, and loses nothing") {
    // 20 fetches of 5 records of 8 bytes (key "k", data "data-NN"), never at the tip until the last.
    val fetches = (0 until 20).map(f => (0 until 5).map(i => record(10 + f * 5 + i, 1L)))
    val perFetch = fetches.head.map(_.bytes).sum
    def run(report: Option[PrefetchResult => HandOverReply]): (PrefetchResult, KeepingSink) = {
      val instance = UUID.randomUUID().toString
      val work = PrefetchWork(instance, 7, FetchSettings(100, 2.0, 0L, 60000L), 1L << 20, None,
        returnWhenCaughtUp = true, reportTo = report.map(_ => "driver"), handOverBytes = 100L)
      val sink = new KeepingSink
      try {
        (PrefetchTask.run(_ => new RecordsReader(shard, fetches),
            Seq(ShardFetchRequest(shard, ShardPosition.AfterSequence("100"))), work, store = sink, report = report),
          sink)
      } finally ExecutorCursors.forget(instance)
    }
    def sequences(sink: KeepingSink): Seq[String] = sink.blocks.values.flatMap(_.map(_.sequenceNumber)).toSeq

    // The driver stops the task once it holds every record (else the task reads on at the tip
    // until maxFetchDuration).
    val reports = mutable.ArrayBuffer.empty[PrefetchResult]
    val (last, sink) = run(Some { r =>
      reports += r
      HandOverReply(reports.flatMap(_.blocks).map(_.records).sum < fetches.flatten.size)
    })
    val blocks = reports.flatMap(_.blocks) ++ last.blocks
    blocks.size should be > 5
    blocks.foreach(_.bytes should be < 100L + perFetch)
    blocks.map(_.from) shouldBe ShardPosition.AfterSequence("100") +: blocks.init.map(_.to)
    sequences(sink) shouldBe fetches.flatten.map(_.sequenceNumber)

    // Reading a backlog (Trigger.AvailableNow), the task hands over as it reads, and returns
    // once at the tip without the driver saying stop.
    val backlogReports = mutable.ArrayBuffer.empty[PrefetchResult]
    val (backlogLast, backlogSink) = run(Some { r => backlogReports += r; HandOverReply(keepReading = true) })
    val backlogBlocks = backlogReports.flatMap(_.blocks) ++ backlogLast.blocks
    backlogReports.size should be > 3
    backlogLast.blocks should not be empty
    backlogBlocks.map(_.from) shouldBe ShardPosition.AfterSequence("100") +: backlogBlocks.init.map(_.to)
    sequences(backlogSink) shouldBe fetches.flatten.map(_.sequenceNumber)

    // Without a driver to hand over to, the task returns instead.
    val (alone, aloneSink) = run(None)
    alone.blocks.map(_.records) shouldBe Seq(15)
    sequences(aloneSink) shouldBe fetches.flatten.take(15).map(_.sequenceNumber)
  }

  test("a task reading hundreds of shards over a backlog holds at most handOverBytes and its calls' answers, " +
    "and reads every shard") {
    val shards = (0 until 300).map(i => ShardKey("clicks", f"shardId-$i%012d"))
    val answer = 64 * 1024 // the bytes of each answer: a backlog, never at the tip
    val handOver = 2L << 20
    val held = new AtomicLong // read and not stored yet
    val peak = new AtomicLong
    val read = ConcurrentHashMap.newKeySet[ShardKey]()
    final class BacklogReader(val shard: ShardKey) extends ShardReader {
      private var next = 0
      override def position: ShardPosition = ShardPosition.AfterSequence((1000 + next).toString)
      override def isEnded: Boolean = false
      override def atTip: Boolean = false
      override def throttleEvents: Int = 0
      override def fetch(): RecordBatch = {
        next += 1
        val record = KinesisRecord("k", new Array[Byte](answer - 1), (1000 + next).toString, 1L)
        peak.accumulateAndGet(held.addAndGet(record.bytes), math.max(_, _))
        read.add(shard)
        RecordBatch(Seq(record), Some("next"), 1000L)
      }
      override def close(): Unit = ()
    }
    val sink = new BlockSink {
      override def put(name: String, block: Array[ByteBuffer]): Option[String] = {
        held.addAndGet(-RecordBlock.decode(block).map(_.bytes).sum)
        Some(location)
      }
      override def location: String = "executor_host_1"
    }
    val instance = UUID.randomUUID().toString
    val work = PrefetchWork(instance, 7, FetchSettings(100, 2.0, 0L, 60000L), 1L << 40, None,
      returnWhenCaughtUp = false, reportTo = Some("driver"), handOverBytes = handOver)
    var reports = 0
    try {
      PrefetchTask.run(r => new BacklogReader(r.shard), shards.map(ShardFetchRequest(_, ShardPosition.TrimHorizon)),
        work, store = sink, report = Some { _ => reports += 1; HandOverReply(reports < 20) })
    } finally ExecutorCursors.forget(instance)
    peak.get should be <= handOver + PrefetchTask.CallsInFlight * answer
    read.size shouldBe shards.size // a pass cut short by the bound resumes where it stopped
  }
}
