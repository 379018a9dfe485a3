// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import java.util.UUID
import java.util.concurrent.ThreadLocalRandom

import scala.util.control.NonFatal

import org.apache.spark.{SparkContext, TaskContext}
import org.apache.spark.internal.Logging
import org.apache.spark.sql.kinesis.{KinesisBlockStore, KinesisDriverEndpoint, KinesisTaskSlots}

import io.github.sparkkinesis.client.ConnectionConfig
import io.github.sparkkinesis.efo.EfoMetrics
import io.github.sparkkinesis.kpl.RangeCheck
import io.github.sparkkinesis.metrics.ReadFigures
import io.github.sparkkinesis.options.{FetchSettings, TriggerLimits}
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}

/** How prefetching reads; `handOverBytes` is what a task holds at most before it stores it ([[PrefetchWork]]). */
final case class PrefetchSettings(
    fetch: FetchSettings, shardsPerTask: Int, fetchBufferSize: Long, handOverBytes: Long = PrefetchTask.HandOverBytes,
    /** The batch limits blocks are cut to (see [[BlockCut]]). */
    limits: TriggerLimits = TriggerLimits())

/**
 * Keeps reading ahead of the query (ARCHITECTURE.md invariant 3): a driver thread runs rounds
 * of prefetch tasks on the executors, each reading `shardsPerTask` shards for up to
 * `maxFetchDuration` into the executors' block managers, while less than `fetchBufferSize` is
 * buffered. The stream plans batches from what is buffered and releases blocks once a batch
 * commits. A child shard is fetched once its parents were fetched to their end.
 *
 * Two threads share it: the stream's (every public method) and the prefetch thread (the
 * rounds). Its state lives in small parts, each guarded by this object's lock: the block
 * chains ([[PrefetchIndex]]), the shards' last statuses ([[ShardStatuses]]), where readers live
 * ([[ReaderOwnership]]), the Trigger.AvailableNow cut-off ([[AvailableNowCutoff]]), the failure
 * policy ([[FailurePolicy]]) and the counters ([[PrefetchMetrics]]). Nothing remote (a Spark
 * job, a block removal, a Kinesis call) runs while the lock is held: what to do is decided
 * under the lock and done after it, so the stream thread never waits on the network; released
 * blocks are removed on a thread of their own ([[BlockRemover]]).
 */
final class Prefetcher(
    sc: SparkContext,
    connection: ConnectionConfig,
    settings: PrefetchSettings,
    queryName: String,
    slots: SparkContext => Int = KinesisTaskSlots.available) extends Logging {

  val streamInstance: String = UUID.randomUUID().toString
  val streamKey: Int = ThreadLocalRandom.current().nextInt(1 << 30, Int.MaxValue)

  private val index = new PrefetchIndex
  private val statuses = new ShardStatuses
  private val readers = new ReaderOwnership
  private val cutoff = new AvailableNowCutoff
  private val failures = new FailurePolicy
  private val counters = new PrefetchMetrics
  private val remover = new BlockRemover(queryName)
  private val pace = new TriggerPace
  private var parentsOf = Map.empty[ShardKey, Seq[ShardKey]]
  private var rangeChecks = Map.empty[ShardKey, RangeCheck] // each shard's, to check KPL user records
  private var consumers = Map.empty[String, String]
  private var rounds = 0L
  // What a round is planned from besides the chains (parents, KPL range checks, consumers,
  // Trigger.AvailableNow's start) changed this many times; see [[planVersion]].
  private var planInputChanges = 0L
  // The plan the running round was made from: once it moved, the round is told to stop at its next hand-over.
  private var runningPlan = -1L
  private var blocksAppended = 0L
  @volatile private var running = false
  private var thread: Thread = _
  private val endpoint = PrefetchReports.endpointName(streamInstance)
  private var endpointRegistration: Option[AutoCloseable] = None
  private val jobGroup = s"kinesis-prefetch-$streamInstance"

  /** Follows the shards of the batch about to be planned, starting each new one at its position. */
  def track(start: Map[ShardKey, ShardPosition], parents: Map[ShardKey, Seq[ShardKey]],
      ranges: Map[ShardKey, RangeCheck] = Map.empty): Unit = {
    val dropped = synchronized {
      if (parents != parentsOf || ranges != rangeChecks) planInputChanges += 1
      parentsOf = parents
      rangeChecks = ranges
      val restarted = start.toSeq.flatMap { case (shard, position) =>
        if (index.onChain(shard, position)) Nil
        else {
          statuses.forget(shard)
          index.reset(shard, position)
        }
      }
      val untracked = index.shardsNot(start.contains).flatMap { shard =>
        readers.forget(shard)
        statuses.forget(shard)
        index.remove(shard)
      }
      notifyAll()
      restarted ++ untracked
    }
    removeBlocks(dropped)
  }

  def start(): Unit = synchronized {
    if (!running && failures.fatal.isEmpty) {
      running = true
      if (endpointRegistration.isEmpty) endpointRegistration = Some(KinesisDriverEndpoint.register(endpoint, reported))
      thread = new Thread(() => loop(), s"kinesis-prefetcher-$queryName")
      thread.setDaemon(true)
      thread.start()
    }
  }

  /** Enhanced fan-out: read each stream through its registered consumer (ARN per stream). */
  def useConsumers(arns: Map[String, String]): Unit = synchronized {
    if (arns != consumers) planInputChanges += 1
    consumers = arns
  }

  /** Trigger.AvailableNow: keep records that arrived from `millis` on apart from those before. */
  def readUntilArrival(millis: Long): Unit = synchronized {
    planInputChanges += 1
    cutoff.cutAt(millis)
  }

  /** Grows with every change of the block chains ([[PrefetchIndex.version]]). */
  def version: Long = synchronized(index.version)

  /**
   * The shards of `from` that can be read further now, with how far (as [[PrefetchIndex.reachable]] says),
   * looked up under one lock, and the version of the chains the answer holds for
   * ([[PrefetchIndex.version]]): while the version stays, the answer does.
   */
  def advanced(
      from: Map[ShardKey, ShardPosition], beforeMillis: Option[Long] = None): (Long, Map[ShardKey, ShardPosition]) =
    synchronized {
      val accept: PrefetchedBlock => Boolean = AvailableNowCutoff.accepts(beforeMillis)
      val moved = Map.newBuilder[ShardKey, ShardPosition]
      from.foreach { case (shard, position) =>
        index.reachable(shard, position, accept).foreach(to => if (to != position) moved += shard -> to)
      }
      (index.version, moved.result())
    }

  /** Whether a followed shard was fetched to its end: its children are to be listed ([[PrefetchIndex.shardsFetchedToEnd]]). */
  def shardFetchedToEnd: Boolean = synchronized(index.shardsFetchedToEnd > 0)

  /** Whether every record of `shard` that arrived before `millis` has been fetched. */
  def fetchedUntil(shard: ShardKey, millis: Long): Boolean =
    synchronized(AvailableNowCutoff.fetchedUntil(shard, millis, index, statuses))

  /** The blocks holding each range's records (of its shard, after `from` up to `to`), in the ranges' order, under one lock. */
  def blocks(ranges: Seq[(ShardKey, ShardPosition, ShardPosition)]): Seq[Seq[PrefetchedBlock]] =
    synchronized(ranges.map { case (shard, from, to) => index.blocksBetween(shard, from, to) })

  /** A batch ending at `end` committed: its blocks are no longer needed. */
  def release(end: Map[ShardKey, ShardPosition]): Unit = {
    val released = synchronized {
      val released = end.toSeq.flatMap { case (shard, position) => index.release(shard, position) }
      pace.committed()
      notifyAll()
      released
    }
    removeBlocks(released)
  }

  def completedRounds: Long = synchronized(rounds)

  /** Whether the buffered blocks fill `fetchBufferSize`: no round reads more until a batch commits. */
  def bufferFull: Boolean = synchronized(index.bufferedBytes >= settings.fetchBufferSize)

  /** How many blocks were taken in so far; [[awaitBlocksAfter]] waits for this to move. */
  def appendedBlocks: Long = synchronized(blocksAppended)

  /**
   * Waits until more than `seen` blocks were taken in, `timeoutMs` passed, or prefetching
   * stopped or failed: a trigger that found nothing new waits here for the next block rather
   * than being called again and again (Spark polls an idle source every 10 ms).
   */
  def awaitBlocksAfter(seen: Long, timeoutMs: Long): Unit = synchronized(awaitWhile(blocksAppended <= seen, timeoutMs))

  def isRunning: Boolean = running

  /**
   * Waits until more than `seen` rounds completed, more than `blocksSeen` blocks were taken in (a
   * round hands its blocks over as it reads), or `timeoutMs` passed; rethrows a fatal error.
   */
  def awaitRoundAfter(seen: Long, timeoutMs: Long, blocksSeen: Long = Long.MaxValue): Unit = synchronized {
    awaitWhile(rounds <= seen && blocksAppended <= blocksSeen, timeoutMs)
    checkHealthy()
  }

  /** Waits (holding the lock) while `pending`, prefetching runs and has not failed, for at most `timeoutMs`. */
  private def awaitWhile(pending: => Boolean, timeoutMs: Long): Unit = {
    val deadline = System.currentTimeMillis() + timeoutMs
    while (pending && failures.fatal.isEmpty && running && System.currentTimeMillis() < deadline) {
      wait(math.max(1, math.min(200, deadline - System.currentTimeMillis())))
    }
  }

  def checkHealthy(): Unit = synchronized(failures.fatal.foreach(e => throw e))

  /** Whether a round found an EFO consumer deleted since the last call: the stream then resolves its consumers again. */
  def takeConsumerDeleted(): Boolean = synchronized(failures.takeConsumerDeleted())

  def metrics: Map[String, String] =
    synchronized(counters.report(index, statuses, if (consumers.isEmpty) None else Some(readers), rounds))

  /** Each followed shard's figures for Spark's metrics system ([[io.github.sparkkinesis.metrics.QueryGauges]]). */
  def readFigures: ReadFigures = synchronized(counters.readFigures(index, statuses))

  def stop(): Unit = {
    val t = synchronized {
      running = false
      notifyAll()
      thread
    }
    if (t != null) {
      sc.cancelJobGroup(jobGroup)
      t.join(30000)
    }
    synchronized(endpointRegistration).foreach { registration =>
      try registration.close()
      catch { case NonFatal(e) => logWarning(s"Could not stop the prefetch endpoint of $queryName", e) }
    }
    // Readers kept in this JVM (all of them in local mode) let go of their EFO subscriptions
    // now, and those on other executors soon after.
    ExecutorCursors.forget(streamInstance)
    EfoMetrics.forget(streamInstance)
    PrefetchReports.forget(streamInstance)
    val driver =
      try KinesisBlockStore.thisExecutorLocation
      catch { case NonFatal(_) => "" }
    val elsewhere = synchronized(readers.stopTargets(except = driver))
    remover.close(Prefetcher.RemovalsOnStopMs)
    ReaderRelease.run(sc, connection, PrefetchRound.closingReaders(elsewhere, settings, streamInstance, streamKey),
      queryName)
    try KinesisBlockStore.removeAll(streamKey)
    catch {
      case NonFatal(e) => logWarning(s"Could not remove the prefetched blocks of $queryName", e)
    }
  }

  /**
   * The prefetch thread. Whatever ends it also ends prefetching: a failure planning a round is a
   * failed round, and a fatal error is the query's error, so the stream never waits for a
   * thread that is gone.
   */
  private def loop(): Unit =
    try {
      sc.setJobGroup(jobGroup, s"Kinesis prefetch for $queryName", interruptOnCancel = true)
      sc.setLocalProperty("spark.sql.execution.id", null)
      while (running) {
        try {
          nextRound(taskSlots()) match {
            case Right(round) => run(round)
            case Left(pauseMs) => pause(pauseMs)
          }
        } catch {
          case NonFatal(e) if running => failed(e)
        }
      }
    } catch {
      case e: Throwable =>
        val wasRunning = synchronized {
          val was = running
          if (was) failures.abandoned(e) // else the query is stopping, and this is how its thread ended
          running = false
          notifyAll()
          was
        }
        if (wasRunning) logError(s"Prefetching for $queryName ended", e)
    }

  /** The next round to run, or how long to wait before looking again. */
  /** The longest gap between calls to a shard at its tip, from the query's pace now ([[TriggerPace]]). */
  private def tipFetchPeriodMs: Long =
    pace.tipFetchPeriodMs(settings.fetch.minFetchPeriodMs, settings.fetch.maxFetchDurationMs)

  private def nextRound(slots: Int): Either[Long, PrefetchRound] = synchronized {
    val room = settings.fetchBufferSize - index.bufferedBytes
    lazy val fetchable = index.fetchable(parentsOf).map(r => r.copy(rangeCheck = rangeChecks.get(r.shard)))
    // Trigger.AvailableNow waits until every shard was read up to its start, or until the buffer
    // holds records a batch of the run takes; its batches take only records from before the
    // start. A buffer full of some shards' later records alone would keep the others from
    // getting there for good: those still read on, an answer per shard a round. A buffer that
    // holds records of the run pauses as always (a batch takes them, which makes room).
    lazy val behindCutoff = cutoff.splitAt.fold(Seq.empty[ShardFetchRequest]) { millis =>
      val nothingForTheRun = !index.allBlocks.exists(b => b.records > 0 && b.firstArrivalMillis < millis)
      if (!nothingForTheRun) Nil
      else fetchable.filterNot(r => AvailableNowCutoff.fetchedUntil(r.shard, millis, index, statuses))
    }
    lazy val requests = if (room > 0) fetchable else behindCutoff
    if (room <= 0 && behindCutoff.isEmpty) Left(Prefetcher.FullBufferPauseMs) // wait for a batch to commit
    else if (requests.isEmpty) Left(settings.fetch.minFetchPeriodMs)
    else {
      runningPlan = planVersion
      val owners = readers.owners(index.shards)
      // Executors that hold subscriptions of shards now read elsewhere get a task that only closes them.
      Right(PrefetchRound.reading(requests, owners, readers.cleanupTargets(owners), room, cutoff.splitAt,
          firstRound = rounds == 0, slots, endpoint, consumers, settings, streamInstance, streamKey, tipFetchPeriodMs))
    }
  }

  private def run(round: PrefetchRound): Unit =
    try {
      val results = Prefetcher.runRound(sc, new PrefetchRDD(sc, round.tasks, connection, round.work))
      val alive = liveExecutors()
      val stale = synchronized {
        readers.executorsAlive(alive)
        val stale = results.toSeq.flatten.flatMap(absorb)
        rounds += 1
        failures.succeeded()
        notifyAll()
        stale
      }
      removeBlocks(stale)
    } catch {
      case NonFatal(e) if running => failed(e)
      case NonFatal(_) => // stopping: the round was cancelled
    }

  /** Grows with every change of what a round is planned from (see [[nextRound]]). */
  private def planVersion: Long = index.shardSetVersion + planInputChanges

  /**
   * A running task's blocks, stored just now: taken in as a finished task's are. The task reads
   * on while the query runs, its blocks continued their chains, the buffer has room and the
   * round's plan still holds: a shard started, ended or moved, or the consumers changed, and
   * the next round is planned at once instead of after the task's whole job.
   */
  private def reported(message: Array[Byte]): Array[Byte] = {
    val result = PrefetchReports.decode(message)
    val (stale, keepReading, tipFetchPeriodMs) = synchronized {
      val stale = absorb(result)
      notifyAll()
      (stale,
        running && stale.isEmpty && index.bufferedBytes < settings.fetchBufferSize &&
          planVersion == runningPlan, this.tipFetchPeriodMs)
    }
    removeBlocks(stale)
    PrefetchReports.answer(HandOverReply(keepReading, tipFetchPeriodMs))
  }

  /** Takes in one task's answer (under the lock); returns its blocks that came too late, to be removed. */
  private def absorb(result: PrefetchResult): Seq[PrefetchedBlock] = {
    result.subscriptions.foreach(readers.subscriptionsAt(result.location, _))
    // A block that does not continue its chain is stale: the shard was reset meanwhile.
    val (appended, stale) = result.blocks.partition(index.append)
    appended.foreach(counters.fetched)
    blocksAppended += appended.size
    counters.read(result.kpl, result.dataLossEvents)
    result.status.foreach { status =>
      val current = index.tail(status.shard).contains(status.position)
      counters.throttled(statuses.update(status, current))
      if (current) readers.readerAt(status.shard, status.location)
    }
    stale
  }

  private def failed(e: Throwable): Unit = {
    val (retryInMs, inARow) = synchronized {
      val retry = failures.failed(e)
      if (retry.isEmpty) running = false
      notifyAll()
      (retry, failures.failuresInARow)
    }
    retryInMs match {
      case None => logError(s"Prefetching for $queryName failed", e)
      case Some(ms) =>
        logWarning(s"A prefetch round for $queryName failed ($inARow in a row); retrying", e)
        pause(ms)
    }
  }

  private def taskSlots(): Int =
    try slots(sc)
    catch {
      case NonFatal(e) =>
        logWarning(s"Could not count the task slots of $queryName", e)
        sc.defaultParallelism
    }

  private def liveExecutors(): Set[String] =
    try KinesisBlockStore.liveExecutorLocations
    catch {
      case NonFatal(e) =>
        logWarning(s"Could not list the executors of $queryName", e)
        synchronized(readers.aliveExecutors)
    }

  private def pause(ms: Long): Unit = synchronized(if (running) wait(math.max(1, ms)))

  /** Removes blocks from the executors' block managers, on the [[BlockRemover]]'s thread. */
  private def removeBlocks(blocks: Seq[PrefetchedBlock]): Unit = remover.remove(blocks.flatMap(_.blockName))
}

object Prefetcher {
  /** How long the prefetch thread waits while the buffer is full before it looks again. */
  val FullBufferPauseMs = 100L

  /** How long a stopping query lets the removals of released blocks finish before it removes all of its blocks. */
  val RemovalsOnStopMs = 10000L

  /**
   * Runs a round's job. A lambda given to Spark is cleaned at every job, which reads the class
   * file that declares it (ASM) and keeps the JIT compiling the parser: so the task's function
   * is a named one, and the job is submitted by the `runJob` that wraps it in no lambda of
   * Spark's own (the shorter ones wrap it in one declared in `SparkContext`, a large class).
   */
  private[prefetch] def runRound(sc: SparkContext, rdd: PrefetchRDD): Array[List[PrefetchResult]] = {
    val results = new Array[List[PrefetchResult]](rdd.partitions.length)
    sc.runJob(rdd, CollectResults, rdd.partitions.indices,
      (i: Int, result: List[PrefetchResult]) => results(i) = result)
    results
  }

  /** A task's results; a named function rather than a lambda, which Spark would clean (ASM) at every round. */
  object CollectResults extends ((TaskContext, Iterator[PrefetchResult]) => List[PrefetchResult]) with Serializable {
    override def apply(context: TaskContext, results: Iterator[PrefetchResult]): List[PrefetchResult] = results.toList
  }
}
