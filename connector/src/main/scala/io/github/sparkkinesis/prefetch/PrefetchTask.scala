package io.github.sparkkinesis.prefetch

import java.util.concurrent.ThreadLocalRandom

import scala.collection.mutable.ArrayBuffer

import org.apache.spark.sql.kinesis.KinesisBlockStore

import io.github.sparkkinesis.client.{KinesisApi, KinesisRecord, KplCounts}
import io.github.sparkkinesis.options.FetchSettings
import io.github.sparkkinesis.offsets.ShardKey
import io.github.sparkkinesis.polling.ShardCursor
import io.github.sparkkinesis.reader.ShardReader
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
     * records; it then reads on, until `maxFetchDuration` or the driver says stop.
     */
    reportTo: Option[String] = None)

/**
 * The executor side of prefetching: reads a few shards in turn (each paced on its own) for up
 * to `maxFetchDuration`, then stores what it read as one block per shard in the executor's
 * block manager and tells the driver what each block holds. Once every shard is at the tip and
 * something was read, it stores and hands over what it has at once, so new records are not
 * held back: with a `report` to the driver, it then reads on (one Spark job reads a trickle for
 * the whole `maxFetchDuration`); without, it returns. First, it closes the readers of its query
 * that its executor no longer owns.
 */
object PrefetchTask {

  private final class ShardRun(val request: ShardFetchRequest, val cursor: ShardReader) {
    val records = new ArrayBuffer[KinesisRecord]()
    var bytes = 0L
    var millisBehindLatest = Long.MaxValue
    var caughtUpAtMillis: Option[Long] = None
    var atTip = false

    /** The same shard and reader, from where this run's records end (they were handed over). */
    def continued: ShardRun = {
      val next = new ShardRun(request.copy(from = cursor.position), cursor)
      next.millisBehindLatest = millisBehindLatest
      next.caughtUpAtMillis = caughtUpAtMillis
      next.atTip = atTip
      next
    }
  }

  /** A polling reader: GetRecords on `api`. */
  def pollingReader(
      api: => KinesisApi, work: PrefetchWork, clock: Clock = SystemClock): ShardFetchRequest => ShardReader =
    r => new ShardCursor(api, r.shard, r.from, work.fetch, clock, r.hashRange)

  def run(
      newReader: ShardFetchRequest => ShardReader,
      requests: Seq[ShardFetchRequest],
      work: PrefetchWork,
      clock: Clock = SystemClock,
      store: BlockSink = SparkBlockSink,
      report: Option[PrefetchResult => Boolean] = None): PrefetchResult = {
    if (work.stopping) {
      ExecutorCursors.forget(work.streamInstance)
      return PrefetchResult(Nil, Nil, store.location)
    }
    ExecutorCursors.releaseUnowned(work.streamInstance, store.location, work.owners, requests.map(_.shard).toSet)
    val deadline = clock.nanoTime() + work.fetch.maxFetchDurationMs * 1000000L
    var runs = requests.map { r =>
      new ShardRun(r, ExecutorCursors.acquire(work.streamInstance, r.shard, r.from)(newReader(r)))
    }
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
    try {
      var done = false
      while (!done) {
        runs.filterNot(_.cursor.isEnded).foreach { run =>
          val issuedAt = System.currentTimeMillis()
          val batch = run.cursor.fetch()
          run.records ++= batch.records
          kpl = kpl + batch.kpl
          dataLossEvents += batch.dataLossEvents
          run.bytes += batch.bytes
          // Negative: not known yet (an EFO subscription before its first event).
          if (batch.millisBehindLatest >= 0) run.millisBehindLatest = batch.millisBehindLatest
          run.atTip = run.cursor.atTip
          if (run.atTip) run.caughtUpAtMillis = Some(issuedAt)
        }
        val allAtTip = runs.forall(r => r.cursor.isEnded || r.atTip)
        val fetched = runs.exists(_.records.nonEmpty)
        val caughtUp = allAtTip && (fetched || work.returnWhenCaughtUp)
        done = clock.nanoTime() >= deadline || handedOverBytes + runs.map(_.bytes).sum >= work.maxBytes ||
          runs.forall(_.cursor.isEnded) || (caughtUp && report.isEmpty)
        report.filter(_ => caughtUp && fetched && !done).foreach { send =>
          val handedOver = result()
          handedOverBytes += runs.map(_.bytes).sum
          runs = runs.map(_.continued)
          kpl = KplCounts.Zero
          dataLossEvents = 0
          done = !send(handedOver)
        }
      }
      result()
    } finally {
      runs.foreach(run => ExecutorCursors.release(work.streamInstance, run.cursor))
    }
  }

  /**
   * One block per shard, or two when Trigger.AvailableNow needs the records that arrived
   * after its start kept apart, so a batch can end exactly at that instant.
   */
  private def storeBlocks(run: ShardRun, work: PrefetchWork, store: BlockSink): Seq[PrefetchedBlock] = {
    val (before, after) = work.splitAtArrivalMillis match {
      case Some(t) => run.records.span(_.approximateArrivalMillis < t)
      case None => (run.records, ArrayBuffer.empty[KinesisRecord])
    }
    val groups = Seq(before, after).filter(_.nonEmpty)
    var from = run.request.from
    val blocks = groups.zipWithIndex.map { case (records, i) =>
      val last = i == groups.size - 1
      val to = if (last) run.cursor.position else records.last.positionAfter
      val name = KinesisBlockStore.blockName(work.streamKey, ThreadLocalRandom.current().nextLong(Long.MaxValue))
      val location = store.put(name, records.toArray)
      val block = PrefetchedBlock(run.request.shard, from, to, location.map(_ => name), location,
        records.size, records.iterator.map(r => r.data.length.toLong + r.partitionKey.length).sum,
        records.head.approximateArrivalMillis, records.last.approximateArrivalMillis)
      from = to
      block
    }
    // A closed shard with nothing new still moves to its end: the driver must learn that.
    if (blocks.isEmpty && run.cursor.position != run.request.from) {
      Seq(PrefetchedBlock(run.request.shard, run.request.from, run.cursor.position, None, None, 0, 0L, 0L, 0L))
    } else blocks
  }
}

/** Where prefetched blocks go; Spark's block manager, or a map in unit tests. */
trait BlockSink {
  def put(name: String, records: Array[KinesisRecord]): Option[String]
  def location: String
}

object SparkBlockSink extends BlockSink {
  override def put(name: String, records: Array[KinesisRecord]): Option[String] =
    KinesisBlockStore.put(name, RecordBlock.encode(records))
  override def location: String = KinesisBlockStore.thisExecutorLocation
}
