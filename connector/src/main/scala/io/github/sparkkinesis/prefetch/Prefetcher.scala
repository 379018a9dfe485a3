package io.github.sparkkinesis.prefetch

import java.util.UUID
import java.util.concurrent.ThreadLocalRandom
import java.util.concurrent.atomic.AtomicLong

import scala.collection.mutable
import scala.util.control.NonFatal

import org.apache.spark.SparkContext
import org.apache.spark.internal.Logging
import org.apache.spark.sql.kinesis.KinesisBlockStore

import io.github.sparkkinesis.client.ConnectionConfig
import io.github.sparkkinesis.efo.EfoMetrics
import io.github.sparkkinesis.errors.{KinesisError, KinesisErrors}
import io.github.sparkkinesis.kpl.HashKeyRange
import io.github.sparkkinesis.options.FetchSettings
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}

final case class PrefetchSettings(fetch: FetchSettings, shardsPerTask: Int, fetchBufferSize: Long)

/**
 * Keeps reading ahead of the query (DESIGN invariant 3): a driver thread runs rounds of
 * prefetch tasks on the executors, each reading `shardsPerTask` shards for up to
 * `maxFetchDuration` into the executors' block managers, while less than `fetchBufferSize`
 * is buffered. The stream plans batches from what is buffered and releases blocks once a
 * batch commits. A child shard is fetched once its parents were fetched to their end.
 */
final class Prefetcher(
    sc: SparkContext,
    connection: ConnectionConfig,
    settings: PrefetchSettings,
    queryName: String) extends Logging {

  val streamInstance: String = UUID.randomUUID().toString
  val streamKey: Int = ThreadLocalRandom.current().nextInt(1 << 30, Int.MaxValue)

  private val index = new PrefetchIndex
  private val status = mutable.Map.empty[ShardKey, ShardFetchStatus]
  private val locations = mutable.Map.empty[ShardKey, String]
  private val subscriptions = new SubscriptionReports
  private var aliveExecutors = Set.empty[String]
  private var parentsOf = Map.empty[ShardKey, Seq[ShardKey]]
  private var hashRanges = Map.empty[ShardKey, HashKeyRange]
  private var availableNowAt: Option[Long] = None
  private var consumers = Map.empty[String, String]
  private var rounds = 0L
  private var failuresInARow = 0
  private var fatal: Option[Throwable] = None
  @volatile private var running = false
  private var thread: Thread = _
  private val jobGroup = s"kinesis-prefetch-$streamInstance"

  private val recordsFetched = new AtomicLong()
  private val bytesFetched = new AtomicLong()
  private val throttleEvents = new AtomicLong()
  private val corruptAggregates = new AtomicLong()
  private val outOfRangeRecords = new AtomicLong()
  private val dataLossEvents = new AtomicLong()

  /** Follows the shards of the batch about to be planned, starting each new one at its position. */
  def track(start: Map[ShardKey, ShardPosition], parents: Map[ShardKey, Seq[ShardKey]],
      ranges: Map[ShardKey, HashKeyRange] = Map.empty): Unit = synchronized {
    parentsOf = parents
    hashRanges = ranges
    start.foreach { case (shard, position) =>
      if (index.reachable(shard, position).isEmpty) {
        removeBlocks(index.reset(shard, position))
        status.remove(shard)
      }
    }
    (index.shards -- start.keySet).foreach { shard =>
      removeBlocks(index.remove(shard))
      locations.remove(shard)
    }
    notifyAll()
  }

  def start(): Unit = synchronized {
    if (!running && fatal.isEmpty) {
      running = true
      thread = new Thread(() => loop(), s"kinesis-prefetcher-$queryName")
      thread.setDaemon(true)
      thread.start()
    }
  }

  /** Enhanced fan-out: read each stream through its registered consumer (ARN per stream). */
  def useConsumers(arns: Map[String, String]): Unit = synchronized { consumers = arns }

  /** Trigger.AvailableNow: keep records that arrived from `millis` on apart from those before. */
  def readUntilArrival(millis: Long): Unit = synchronized { availableNowAt = Some(millis) }

  /** How far `shard` can be read from `from` now; with `beforeMillis`, only records that arrived earlier. */
  def reachable(shard: ShardKey, from: ShardPosition, beforeMillis: Option[Long] = None): ShardPosition =
    synchronized {
      val accept = (b: PrefetchedBlock) => beforeMillis.forall(t => b.records == 0 || b.firstArrivalMillis < t)
      index.reachable(shard, from, accept).getOrElse(from)
    }

  /** Whether every record of `shard` that arrived before `millis` has been fetched. */
  def fetchedUntil(shard: ShardKey, millis: Long): Boolean = synchronized {
    index.tail(shard).exists(_.isInstanceOf[ShardPosition.ShardEnd]) ||
      status.get(shard).exists(_.caughtUpAtMillis.exists(_ >= millis)) ||
      index.allBlocks.exists(b => b.shard == shard && b.records > 0 && b.lastArrivalMillis >= millis)
  }

  def blocks(shard: ShardKey, from: ShardPosition, to: ShardPosition): Seq[PrefetchedBlock] =
    synchronized(index.blocksBetween(shard, from, to))

  /** A batch ending at `end` committed: its blocks are no longer needed. */
  def release(end: Map[ShardKey, ShardPosition]): Unit = synchronized {
    end.foreach { case (shard, position) => removeBlocks(index.release(shard, position)) }
    notifyAll()
  }

  def completedRounds: Long = synchronized(rounds)

  def isRunning: Boolean = running

  /** Waits until more than `seen` rounds completed, or `timeoutMs` passed; rethrows a fatal error. */
  def awaitRoundAfter(seen: Long, timeoutMs: Long): Unit = synchronized {
    val deadline = System.currentTimeMillis() + timeoutMs
    while (rounds <= seen && fatal.isEmpty && running && System.currentTimeMillis() < deadline) {
      wait(math.max(1, math.min(200, deadline - System.currentTimeMillis())))
    }
    checkHealthy()
  }

  def checkHealthy(): Unit = synchronized(fatal.foreach(e => throw e))

  def metrics: Map[String, String] = synchronized {
    val open = status.values.filterNot(s => index.tail(s.shard).exists(_.isInstanceOf[ShardPosition.ShardEnd]))
    val behind = open.map(_.millisBehindLatest).filter(_ != Long.MaxValue)
    val lag = if (behind.isEmpty) Map.empty[String, String] else Map(
      "avgMsBehindLatest" -> (behind.sum.toDouble / behind.size).toString,
      "maxMsBehindLatest" -> behind.max.toString,
      "minMsBehindLatest" -> behind.min.toString)
    val efo = if (consumers.isEmpty) Map.empty[String, String] else Map(
      "liveSubscriptions" -> subscriptions.liveSubscriptions(aliveExecutors).toString,
      "resubscriptions" -> subscriptions.resubscriptions.toString)
    lag ++ efo ++ Map(
      "prefetchedBytes" -> index.bufferedBytes.toString,
      "prefetchedRecords" -> index.bufferedRecords.toString,
      "fetchedRecords" -> recordsFetched.get.toString,
      "fetchedBytes" -> bytesFetched.get.toString,
      "throttleEvents" -> throttleEvents.get.toString,
      "corruptAggregates" -> corruptAggregates.get.toString,
      "outOfRangeRecords" -> outOfRangeRecords.get.toString,
      "dataLossEvents" -> dataLossEvents.get.toString,
      "trackedShards" -> index.shards.size.toString,
      "prefetchRounds" -> rounds.toString)
  }

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
    // Readers kept in this JVM (all of them in local mode) let go of their EFO subscriptions
    // now, and those on other executors soon after. Kinesis lets a new subscription take a
    // shard over 5 s after the last one.
    ExecutorCursors.forget(streamInstance)
    EfoMetrics.forget(streamInstance)
    releaseOnExecutors()
    try KinesisBlockStore.removeAll(streamKey) catch {
      case NonFatal(e) => logWarning(s"Could not remove the prefetched blocks of $queryName", e)
    }
  }

  private def loop(): Unit = {
    sc.setJobGroup(jobGroup, s"Kinesis prefetch for $queryName", interruptOnCancel = true)
    sc.setLocalProperty("spark.sql.execution.id", null)
    while (running) {
      val next = synchronized {
        val room = settings.fetchBufferSize - index.bufferedBytes
        if (room <= 0) None else Some((fetchable(), room, availableNowAt, rounds == 0, consumers))
      }
      next match {
        case None => pause(100) // the buffer is full: wait for a batch to commit
        case Some((requests, _, _, _, _)) if requests.isEmpty => pause(settings.fetch.minFetchPeriodMs)
        case Some((requests, room, splitAt, firstRound, arns)) => runRound(requests, room, splitAt, firstRound, arns)
      }
    }
  }

  private def runRound(requests: Seq[ShardFetchRequest], room: Long, splitAt: Option[Long], firstRound: Boolean,
      arns: Map[String, String]): Unit = {
    val groups = requests.sortBy(_.shard).grouped(settings.shardsPerTask).toSeq
    val (owners, cleanups) = synchronized {
      val owners = locations.filter { case (shard, _) => index.shards.contains(shard) }.toMap
      (owners, subscriptions.cleanupTargets(owners.values, aliveExecutors))
    }
    val fetching = groups.map(group => (group, owners.get(group.head.shard)))
    // Executors that hold subscriptions of shards now read elsewhere get a task that only closes them.
    val tasks = (fetching ++ cleanups.map(location => (Nil, Some(location)))).zipWithIndex.map {
      case ((group, location), i) => PrefetchPartition(i, group, location)
    }
    val work = PrefetchWork(streamInstance, streamKey, settings.fetch, math.max(1L, room / groups.size),
      splitAt, returnWhenCaughtUp = splitAt.isDefined || firstRound, consumers = arns, owners = owners)
    try {
      val results = sc.runJob(new PrefetchRDD(sc, tasks, connection, work), (it: Iterator[PrefetchResult]) => it.toList)
      val alive = liveExecutors()
      synchronized {
        aliveExecutors = alive
        results.flatten.foreach(absorb)
        rounds += 1
        failuresInARow = 0
        notifyAll()
      }
    } catch {
      case NonFatal(e) if running => failed(e)
      case NonFatal(_) => // stopping: the round was cancelled
    }
  }

  private def absorb(result: PrefetchResult): Unit = {
    result.subscriptions.foreach(subscriptions.record(result.location, _))
    corruptAggregates.addAndGet(result.kpl.corruptAggregates)
    outOfRangeRecords.addAndGet(result.kpl.outOfRangeRecords)
    dataLossEvents.addAndGet(result.dataLossEvents)
    result.blocks.foreach { block =>
      if (index.append(block)) {
        recordsFetched.addAndGet(block.records)
        bytesFetched.addAndGet(block.bytes)
      } else {
        removeBlocks(Seq(block)) // the shard was reset meanwhile: this answer is stale
      }
    }
    result.status.foreach { s =>
      // A cursor counts its throttling for its whole life; add what is new since last time.
      val before = status.get(s.shard).map(_.throttled).getOrElse(0)
      throttleEvents.addAndGet(if (s.throttled >= before) s.throttled - before else s.throttled)
      if (index.tail(s.shard).contains(s.position)) {
        status(s.shard) = s
        locations(s.shard) = s.location
      }
    }
  }

  /** Shards not read to their end, whose tracked parents all were. */
  private def fetchable(): Seq[ShardFetchRequest] =
    index.shards.toSeq.flatMap { shard =>
      val tail = index.tail(shard).get
      val parentsDone = parentsOf.getOrElse(shard, Nil).forall { p =>
        index.tail(p).forall(_.isInstanceOf[ShardPosition.ShardEnd])
      }
      if (tail.isInstanceOf[ShardPosition.ShardEnd] || !parentsDone) None else Some(ShardFetchRequest(shard, tail, hashRanges.get(shard)))
    }

  /** A Kinesis error that retrying cannot fix ends the query; anything else is retried a few times. */
  private def failed(e: Throwable): Unit = synchronized {
    val causes = Iterator.iterate(e)(_.getCause).takeWhile(_ != null).toSeq
    val permanent = causes.collectFirst { case k: KinesisError if !KinesisErrors.isRetryable(k) => k }
    failuresInARow += 1
    if (permanent.isDefined || failuresInARow >= Prefetcher.MaxFailuresInARow) {
      fatal = Some(permanent.map(_.asInstanceOf[Throwable]).getOrElse(e))
      running = false
      logError(s"Prefetching for $queryName failed", e)
    } else {
      logWarning(s"A prefetch round for $queryName failed ($failuresInARow in a row); retrying", e)
      wait(1000L * failuresInARow)
    }
    notifyAll()
  }

  private def liveExecutors(): Set[String] =
    try KinesisBlockStore.liveExecutorLocations catch {
      case NonFatal(e) =>
        logWarning(s"Could not list the executors of $queryName", e)
        aliveExecutors
    }

  /**
   * Best effort and bounded: a task on each other executor that read for the query closes its
   * readers there now rather than when idle (EFO subscriptions stay open until then).
   */
  private def releaseOnExecutors(): Unit = {
    val targets = synchronized(subscriptions.executors(aliveExecutors)).filterNot(_ == driverLocation)
    if (targets.isEmpty || sc.isStopped) return
    val tasks = targets.zipWithIndex.map { case (location, i) => PrefetchPartition(i, Nil, Some(location)) }
    val work = PrefetchWork(streamInstance, streamKey, settings.fetch, 1L, None, returnWhenCaughtUp = true,
      stopping = true)
    val group = s"kinesis-release-$streamInstance"
    val job = new Thread(() => {
      sc.setJobGroup(group, s"Kinesis readers of $queryName closed", interruptOnCancel = true)
      sc.setLocalProperty("spark.sql.execution.id", null)
      try {
        sc.runJob(new PrefetchRDD(sc, tasks, connection, work), (_: Iterator[PrefetchResult]) => ())
        logInfo(s"Closed the readers of $queryName on ${targets.size} executors")
      } catch { case NonFatal(e) => logInfo(s"Could not close the readers of $queryName on every executor: $e") }
    }, s"kinesis-release-$queryName")
    job.setDaemon(true)
    job.start()
    job.join(Prefetcher.ReleaseTimeoutMs)
    if (job.isAlive) {
      logInfo(s"Closing the readers of $queryName on ${targets.size} executors took too long; " +
        "their subscriptions end when Kinesis ends them (within 5 minutes)")
      sc.cancelJobGroup(group)
    }
  }

  private def driverLocation: String =
    try KinesisBlockStore.thisExecutorLocation catch { case NonFatal(_) => "" }

  private def pause(ms: Long): Unit = synchronized(if (running) wait(math.max(1, ms)))

  private def removeBlocks(blocks: Seq[PrefetchedBlock]): Unit = {
    val names = blocks.flatMap(_.blockName)
    if (names.nonEmpty) {
      try KinesisBlockStore.remove(names) catch {
        case NonFatal(e) => logWarning(s"Could not remove ${names.size} prefetched blocks", e)
      }
    }
  }
}

object Prefetcher {
  val MaxFailuresInARow = 5
  /** How long a stopping query waits for the executors to close its readers. */
  val ReleaseTimeoutMs = 15000L
}
