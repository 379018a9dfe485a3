// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import java.nio.ByteBuffer
import java.util.concurrent.ThreadLocalRandom
import java.util.concurrent.atomic.AtomicLong

import org.apache.spark.sql.kinesis.KinesisBlockStore

import io.github.sparkkinesis.client.{KinesisApi, KinesisRecord, KplCounts}
import io.github.sparkkinesis.options.FetchSettings
import io.github.sparkkinesis.offsets.ShardKey
import io.github.sparkkinesis.polling.ShardCursor
import io.github.sparkkinesis.prefetch.RecordBlock.RecordBlockWriter
import io.github.sparkkinesis.reader.ShardReader
import io.github.sparkkinesis.threads.Doorbell
import io.github.sparkkinesis.threads.InFlight
import io.github.sparkkinesis.time.{Clock, SystemClock}

/** What a prefetch task is asked to do, besides which shards to read. */
final case class PrefetchWork(
    streamInstance: String,
    streamKey: Int,
    fetch: FetchSettings,
    maxBytes: Long,
    splitAtArrivalMillis: Option[Long],
    returnWhenCaughtUp: Boolean,
    /** Enhanced fan-out: the consumer ARN per stream; empty when polling. */
    consumers: Map[String, String] = Map.empty,
    /** Per tracked shard, the executor whose reader the next fetch continues (see [[ExecutorCursors.releaseUnowned]]). */
    owners: Map[ShardKey, String] = Map.empty,
    /** The query stopped: the task only closes the query's readers on its executor. */
    stopping: Boolean = false,
    /**
     * The driver endpoint the task hands its blocks to as soon as it is at the tip with new
     * records, or holds `handOverBytes`; it then reads on, until `maxFetchDuration`, the
     * driver says stop, or (with `returnWhenCaughtUp`) every shard is at the tip.
     */
    reportTo: Option[String] = None,
    /**
     * The most record bytes the task holds before it stores them (and hands them over, or
     * returns). Without it, a shard read faster than `maxFetchDuration` can hold (EFO is paced
     * only by Kinesis) would fill the executor's heap before anything is stored.
     */
    handOverBytes: Long = PrefetchTask.HandOverBytes,
    /** The longest gap between calls to a polled shard at its tip ([[TriggerPace]]); 0: `minFetchPeriod`. */
    tipFetchPeriodMs: Long = 0L,
    /** Where a shard's records are cut into blocks, so that batch limits fall between blocks. */
    blockCut: BlockCut = BlockCut.None,
    /**
     * How long a task that reports reads in all (its Spark job's length), handing over what it
     * holds at least every `maxFetchDuration`; without a report, or when shorter, `maxFetchDuration`.
     */
    jobMs: Long = 0L)

/**
 * The driver's answer to a hand-over: whether the task reads on, and from now on the longest gap
 * between calls to a polled shard at its tip ([[TriggerPace]]; 0 leaves it): a job reads for a
 * minute, and the query's pace may change meanwhile.
 */
final case class HandOverReply(keepReading: Boolean, tipFetchPeriodMs: Long = 0L)

/**
 * The executor side of prefetching: reads its shards, up to [[CallsInFlight]] at once (each
 * paced on its own), for up to `maxFetchDuration`, then stores what it read as one block per
 * shard in the executor's block manager and tells the driver what each block holds. Once every shard is at the tip and
 * something was read (or a shard reached its end), it stores and hands over what it has at once, so new records are not
 * held back, and so it does once it holds `handOverBytes`, so its memory stays bounded however
 * fast it reads and however many shards it reads (no call starts once it holds that much; see
 * [[CallsInFlight]]): with a `report` to the driver, it then reads on, handing over at least every
 * `maxFetchDuration`, for its whole `jobMs` or until the driver says stop (one Spark job reads a
 * trickle, or a backlog, for a minute rather than one per `maxFetchDuration`); without, it returns.
 * With `returnWhenCaughtUp` it returns once every shard is at the tip, report or not. First, it
 * closes the readers of its query that its executor no longer owns.
 */
object PrefetchTask {

  /**
   * The shards a task calls Kinesis for at once. Each call waits a round trip (tens of
   * milliseconds on AWS) and most of it is spent waiting; a task reading shards one after
   * another would poll each of hundreds only every few seconds. It is also what a task may hold
   * beyond its bound: a call starts only while the task holds less than `handOverBytes` (and
   * its share of `fetchBufferSize`), so it holds less than that plus the answers of the calls
   * in flight when the bound was reached: at most 8, a GetRecords answer being at most 10 MiB.
   */
  val CallsInFlight = 8

  /** [[PrefetchWork.handOverBytes]] by default: 64 MiB, 32 s of a shard at 2 MiB/s. */
  val HandOverBytes: Long = 64L * 1024 * 1024

  private final class ShardRun(val request: ShardFetchRequest, val cursor: ShardReader,
      splitAtArrivalMillis: Option[Long], blockCut: BlockCut) {
    /**
     * The records read, laid out as they come, in blocks of at most `blockCut`; a new block
     * starts at the first record that arrived after Trigger.AvailableNow's start, so a batch
     * can end exactly at that instant.
     */
    val groups = scala.collection.mutable.ArrayBuffer(new RecordBlockWriter)
    private var pastSplit = false
    var millisBehindLatest = Long.MaxValue
    var caughtUpAtMillis: Option[Long] = None
    var atTip = false

    def add(records: Seq[KinesisRecord]): Unit = records.foreach { r =>
      val current = groups.last
      val splitHere = !pastSplit && splitAtArrivalMillis.exists(r.approximateArrivalMillis >= _)
      if (splitHere) pastSplit = true
      if (current.count > 0 && (splitHere || blockCut.full(current.count, current.bytes, r.bytes))) {
        groups += new RecordBlockWriter
      }
      groups.last.add(r)
    }

    def count: Int = groups.iterator.map(_.count).sum
    def bytes: Long = groups.iterator.map(_.bytes).sum

    /** The same shard and reader, from where this run's records end (they were handed over). */
    def continued: ShardRun = {
      val next = new ShardRun(request.copy(from = cursor.position), cursor, splitAtArrivalMillis, blockCut)
      next.millisBehindLatest = millisBehindLatest
      next.caughtUpAtMillis = caughtUpAtMillis
      next.atTip = atTip
      next
    }
  }

  /** A polling reader: GetRecords on `api`. */
  def pollingReader(
      api: => KinesisApi, work: PrefetchWork, clock: Clock = SystemClock): ShardFetchRequest => ShardReader =
    r => new ShardCursor(api, r.shard, r.from, work.fetch, clock, r.rangeCheck)

  def run(
      newReader: ShardFetchRequest => ShardReader,
      requests: Seq[ShardFetchRequest],
      work: PrefetchWork,
      clock: Clock = SystemClock,
      store: BlockSink = SparkBlockSink,
      report: Option[PrefetchResult => HandOverReply] = None): PrefetchResult = {
    if (work.stopping) ExecutorCursors.forget(work.streamInstance)
    if (ExecutorCursors.isStopped(work.streamInstance)) return PrefetchResult(Nil, Nil, store.location)
    ExecutorCursors.releaseUnowned(work.streamInstance, store.location, work.owners, requests.map(_.shard).toSet)
    val handOverEveryNanos = work.fetch.maxFetchDurationMs * 1000000L
    val startedAt = clock.nanoTime()
    val deadline = startedAt + (if (report.isEmpty) handOverEveryNanos
                                else math.max(work.jobMs * 1000000L, handOverEveryNanos))
    var handOverDue = startedAt + handOverEveryNanos
    var runs = requests.map { r =>
      val consumer = work.consumers.get(r.shard.stream)
      new ShardRun(r, ExecutorCursors.acquire(work.streamInstance, r.shard, r.from, consumer)(newReader(r)),
        work.splitAtArrivalMillis, work.blockCut)
    }
    runs.foreach(_.cursor.paceAtTip(work.tipFetchPeriodMs))
    // Shards pushed their records (enhanced fan-out) and all at the tip: the task waits on one bell
    // for all of them, up to the tip period, instead of waking at each one's empty events.
    val bell = new Doorbell(clock)
    runs.foreach(_.cursor.wakeOnArrival(bell))
    def tipPeriodNanosOf(periodMs: Long) = math.max(periodMs, work.fetch.minFetchPeriodMs) * 1000000L
    var tipPeriodNanos = tipPeriodNanosOf(work.tipFetchPeriodMs)
    var kpl = KplCounts.Zero
    var dataLossEvents = 0
    var handedOverBytes = 0L
    def result(): PrefetchResult = {
      val blocks = runs.flatMap(run => storeBlocks(run, work, store))
      val location = store.location
      PrefetchResult(blocks,
        runs.map { run =>
          ShardFetchStatus(run.request.shard, run.cursor.position,
            if (run.cursor.isEnded) 0L else run.millisBehindLatest,
            run.caughtUpAtMillis, run.cursor.throttleEvents, location)
        }, location, kpl = kpl, dataLossEvents = dataLossEvents)
    }
    // Where the next pass over the shards starts: after the last one read, so that a pass cut
    // short by the memory bound does not leave the same shards unread every time.
    var resumeAt: Option[ShardKey] = None
    try {
      var done = false
      while (!done) {
        val open = runs.filterNot(_.cursor.isEnded).toIndexedSeq
        val first = resumeAt.map(s => open.indexWhere(_.request.shard == s)).filter(_ >= 0).getOrElse(0)
        val pass = open.drop(first) ++ open.take(first)
        // A call starts only while the task holds less than it may: the memory bound holds per
        // call, whatever the number of shards, with at most the answers of the calls in flight
        // beyond it (see [[CallsInFlight]]).
        val limit = math.min(work.handOverBytes, work.maxBytes - handedOverBytes)
        val holding = new AtomicLong(runs.map(_.bytes).sum)
        bell.reset()
        // Each run is touched by one thread at a time; the counts are summed on this one. A call
        // returns its counts, not its answer: the records are garbage once laid out in the block,
        // instead of living (and being promoted by a young collection) until the slowest call ends.
        val calls = InFlight.map(pass, CallsInFlight) { run =>
          if (holding.get >= limit) None
          else {
            val issuedAt = System.currentTimeMillis()
            val batch = run.cursor.fetch()
            val before = run.bytes
            run.add(batch.records)
            holding.addAndGet(run.bytes - before)
            // Negative: not known yet (an EFO subscription before its first event).
            if (batch.millisBehindLatest >= 0) run.millisBehindLatest = batch.millisBehindLatest
            run.atTip = run.cursor.atTip
            if (run.atTip) run.caughtUpAtMillis = Some(issuedAt)
            Some((batch.kpl, batch.dataLossEvents, batch.records.nonEmpty))
          }
        }
        calls.flatten.foreach { case (callKpl, callDataLoss, _) =>
          kpl = kpl + callKpl
          dataLossEvents += callDataLoss
        }
        resumeAt = pass.zip(calls).collectFirst { case (run, None) => run.request.shard }
        val allAtTip = runs.forall(r => r.cursor.isEnded || r.atTip)
        // A shard that reached its end is news too: the driver then starts its children.
        val fetched = runs.exists(r => r.count > 0 || (r.cursor.isEnded && r.cursor.position != r.request.from))
        val caughtUp = allAtTip && (fetched || work.returnWhenCaughtUp)
        val held = runs.map(_.bytes).sum
        val holdsEnough = held >= work.handOverBytes
        val now = clock.nanoTime()
        done = now >= deadline || handedOverBytes + held >= work.maxBytes ||
          runs.forall(_.cursor.isEnded) || (caughtUp && (report.isEmpty || work.returnWhenCaughtUp)) ||
          (holdsEnough && report.isEmpty)
        // Handed over at least every maxFetchDuration, records or not: the driver's lags stay
        // current, and it can end the job when its shards changed.
        report.filter(_ => ((caughtUp && fetched) || holdsEnough || now >= handOverDue) && !done).foreach { send =>
          val handedOver = result()
          handedOverBytes += runs.map(_.bytes).sum
          runs = runs.map(_.continued)
          kpl = KplCounts.Zero
          dataLossEvents = 0
          handOverDue = now + handOverEveryNanos
          val reply = send(handedOver)
          if (reply.tipFetchPeriodMs > 0) {
            runs.foreach(_.cursor.paceAtTip(reply.tipFetchPeriodMs))
            tipPeriodNanos = tipPeriodNanosOf(reply.tipFetchPeriodMs)
          }
          done = !reply.keepReading
        }
        val readNothing = calls.forall(_.exists { case (_, _, gotRecords) => !gotRecords })
        val quietAtTip = readNothing && open.forall(r => r.cursor.pushed && r.atTip)
        if (!done && open.nonEmpty && quietAtTip) {
          bell.await(math.min(tipPeriodNanos, math.min(deadline, handOverDue) - clock.nanoTime()))
        }
      }
      result()
    } finally {
      ExecutorCursors.releaseAll(work.streamInstance, runs.map(_.cursor))
    }
  }

  /** The shard's blocks: one, or more where batch limits or Trigger.AvailableNow's start cut them. */
  private def storeBlocks(run: ShardRun, work: PrefetchWork, store: BlockSink): Seq[PrefetchedBlock] = {
    val groups = run.groups.filter(_.count > 0).toSeq
    var from = run.request.from
    val blocks = groups.zipWithIndex.map { case (records, i) =>
      val last = records.last.get
      val to = if (i == groups.size - 1) run.cursor.position else last.positionAfter
      val name = KinesisBlockStore.blockName(work.streamKey, ThreadLocalRandom.current().nextLong(Long.MaxValue))
      val location = store.put(name, records.result())
      val block = PrefetchedBlock(run.request.shard, from, to, location.map(_ => name), location,
        records.count, records.bytes, records.firstArrivalMillis, last.approximateArrivalMillis)
      from = to
      block
    }
    // A closed shard with nothing new still moves to its end: the driver must learn that.
    if (blocks.isEmpty && run.cursor.position != run.request.from) {
      Seq(PrefetchedBlock(run.request.shard, run.request.from, run.cursor.position, None, None, 0, 0L, 0L, 0L))
    } else blocks
  }
}

/** Where prefetched blocks ([[RecordBlock]]s) go; Spark's block manager, or a map in unit tests. */
trait BlockSink {
  def put(name: String, block: Array[ByteBuffer]): Option[String]
  def location: String
}

object SparkBlockSink extends BlockSink {
  override def put(name: String, block: Array[ByteBuffer]): Option[String] = KinesisBlockStore.put(name, block)
  override def location: String = KinesisBlockStore.thisExecutorLocation
}
