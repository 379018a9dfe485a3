// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import java.util.concurrent.{
  ExecutorService, Executors, ScheduledExecutorService, ThreadFactory, ThreadLocalRandom, TimeUnit
}
import java.util.concurrent.atomic.AtomicInteger

import scala.collection.mutable

import org.apache.spark.internal.Logging

import io.github.sparkkinesis.client.{KinesisPutApi, PutEntry}
import io.github.sparkkinesis.errors.KinesisErrors
import io.github.sparkkinesis.kpl.HashKeyRange
import io.github.sparkkinesis.options.{KinesisSinkOptions, PutSettings}
import io.github.sparkkinesis.time.{Clock, SystemClock}

/**
 * Sends one task's records in PutRecords calls within the Kinesis limits (and the sink's own
 * `maxRecordsPerPut` / `maxBytesPerPut`), at most `maxInFlightPuts` calls at a time; the writer
 * waits while its rows' lane is full, so memory stays bounded. Records Kinesis refuses are sent
 * again after a jittered, doubling back-off, up to `maxPutRetries` times; then [[flush]] fails
 * with how many rows could not be written and why. No row is dropped silently: each one is
 * either stored by Kinesis or counted in that failure.
 *
 * Order per partition key (`orderPerKey`, the default): each stream's rows go to
 * `maxInFlightPuts` lanes by partition key (by target shard when aggregating); a lane has one
 * call in flight at a time and retries a refused record before it sends anything after it, and
 * a call carries one Kinesis record per key (per shard when aggregating; see [[CallPacker]]).
 * So within a task every key's rows are stored in the order written. What stays at-least-once:
 * a call whose answer was lost (a connection reset after Kinesis stored it) is sent again by
 * the SDK, and a failed task is run again from its first row, so a reader may see a row again
 * after later ones; the first copies are in order. Without `orderPerKey`, a stream has one
 * lane with `maxInFlightPuts` calls in flight, taking rows in order as they fit.
 *
 * Aggregating (`aggregation` = `kpl`), rows are routed to the open shard their hash key falls
 * in, from the stream's shards as ListShards gave them (listed once per stream by this writer),
 * and each call packs a shard's rows into KPL aggregates. See [[resend]] for what happens when
 * the stream was resharded since.
 *
 * A record waits at most `maxPutLinger` for its call to fill: a timer sends older lanes as
 * they are, so rows that come slowly (a real-time query's) reach Kinesis at once rather than
 * when the task ends. One task's writer thread calls it; the timer and the finished calls take
 * the same lock.
 */
final class PutRecordsBatcher(
    api: KinesisPutApi,
    settings: PutSettings,
    where: String,
    counters: KinesisSinkCounters,
    clock: Clock = SystemClock,
    jitter: () => Double = () => ThreadLocalRandom.current().nextDouble())
  extends Logging {
  import PutRecordsBatcher._

  /** One stream's lanes, its shard map when aggregating, and rows to send again first. */
  private final class StreamState(val name: String) {
    val lanes: Array[Lane] =
      if (settings.orderPerKey) Array.fill(settings.maxInFlightPuts)(newLane(1))
      else Array(newLane(settings.maxInFlightPuts))
    var shards: Option[ShardMap] = None
    /** A newer shard map, put in place once no call of the stream is in flight. */
    var remap: Option[ShardMap] = None
    val resend = mutable.ArrayBuffer.empty[Pending]
    var inFlight = 0

    def hasWork: Boolean = inFlight > 0 || remap.isDefined || resend.nonEmpty || lanes.exists(!_.isEmpty)
  }

  private def newLane(maxCalls: Int) = new Lane(maxCalls, settings.maxBytesPerPut,
    if (settings.aggregate) None else Some(settings.maxRecordsPerPut),
    if (settings.aggregate) Some(math.min(KinesisSinkOptions.MaxAggregateBytes, settings.maxBytesPerPut)) else None)

  private val lock = new Object
  private val packer = new CallPacker(settings)
  private val attempts = new PutAttempts(api, settings, counters, clock, jitter)
  private val streams = mutable.LinkedHashMap.empty[String, StreamState]
  private var inFlight = 0
  private var flushing = false
  /** Aborted or closed: nothing more is sent. */
  private var stopped = false
  private val failures = mutable.ArrayBuffer.empty[CallOutcome]
  private var error: Option[Throwable] = None
  private var pool: ExecutorService = _
  private var lingerTimer: ScheduledExecutorService = _
  // An error of the timer's thread, thrown to the writer at its next call.
  private var timerError: Option[Throwable] = None

  /** Queues a record (with its id, see [[TaskRecordIds]]); waits while its lane is full, sending what is ready. */
  def add(stream: String, entry: PutEntry, recordId: Option[String] = None): Unit = {
    val state = lock.synchronized {
      failIfAnyFailed()
      startLingerTimer()
      streams.getOrElseUpdate(stream, new StreamState(stream))
    }
    if (settings.aggregate && lock.synchronized(state.shards.isEmpty)) {
      val shards = listShards(stream) // Outside the lock: finished calls need it meanwhile.
      lock.synchronized(if (state.shards.isEmpty) state.shards = Some(shards))
    }
    lock.synchronized {
      var queued = false
      while (!queued && !stopped) {
        // Routed again after every wait: the stream's shards may have been mapped again meanwhile.
        val (lane, key, target) = route(state, entry)
        if (state.remap.isDefined) await(state.remap.isDefined)
        else if (lane.overBound) await(lane.overBound)
        else {
          lane.add(key, Pending(entry, target, clock.nanoTime(), recordId))
          if (lane.ready) pump(linger = false)
          queued = true
        }
      }
    }
  }

  /** Sends every queued record and waits for all calls; throws if any record could not be written. */
  def flush(): Unit = lock.synchronized {
    failIfAnyFailed()
    flushing = true
    try {
      while (!stopped && streams.valuesIterator.exists(_.hasWork)) await(streams.valuesIterator.exists(_.hasWork))
      failIfAnyFailed()
    } finally flushing = false
  }

  /** Drops what is still queued and stops the calls in flight (the task failed). */
  def abort(): Unit = lock.synchronized {
    stopped = true
    streams.clear()
    if (pool != null) pool.shutdownNow()
    lock.notifyAll()
  }

  /** Ends the threads; always called when the task ends. */
  def close(): Unit = lock.synchronized {
    stopped = true
    lock.notifyAll()
    if (lingerTimer != null) lingerTimer.shutdownNow()
    if (pool != null) pool.shutdownNow()
  }

  /**
   * Sends every lane whose oldest record waited `maxPutLinger` or longer (the timer calls it).
   * After a failure it sends nothing more: the writer's next call fails the task.
   */
  private[sink] def sendLingering(): Unit = lock.synchronized(pump(linger = true))

  private[sink] def backoffMs(retry: Int): Long = attempts.backoffMs(retry)

  /** Calls started and not yet finished (their outcome taken in): 0 once the batcher is idle. */
  private[sink] def callsInFlight: Int = lock.synchronized(inFlight)

  /** Sends what is ready, then waits for a call to finish while `blocked` holds; fails the task if a call failed. */
  private def await(blocked: => Boolean): Unit = {
    pump(linger = false)
    if (blocked && !stopped) {
      failIfAnyFailed()
      lock.wait()
      failIfAnyFailed()
    }
  }

  /** The lane, order key and target shard of a record. */
  private def route(state: StreamState, entry: PutEntry): (Lane, AnyRef, Option[TargetShard]) = {
    def byKey = state.lanes((entry.partitionKey.hashCode & Int.MaxValue) % state.lanes.length)
    if (settings.aggregate) {
      val target = state.shards.flatMap(_.shardFor(HashKeyRange.hashKeyOf(entry.partitionKey, entry.explicitHashKey)))
      target match {
        case Some(shard) => (state.lanes(shard.index % state.lanes.length), shard, target)
        case None => (byKey, entry.partitionKey, None) // ListShards left a gap: sent plain.
      }
    } else if (settings.orderPerKey) (byKey, entry.partitionKey, None)
    else (state.lanes(0), Unordered, None)
  }

  /**
   * Starts every call that may start: a lane with a full call waiting, or whose oldest record
   * lingered (`linger`), or any while flushing; within `maxInFlightPuts` and each lane's own
   * bound. A stream with a newer shard map gets it once none of its calls is in flight.
   */
  private def pump(linger: Boolean): Unit = if (!stopped && failures.isEmpty && error.isEmpty) {
    val lingeredBefore = clock.nanoTime() - settings.maxPutLingerMs * 1000000L
    streams.valuesIterator.foreach { state =>
      if (state.remap.isDefined && state.inFlight == 0) remap(state)
      if (state.remap.isEmpty) state.lanes.foreach { lane =>
        def due = flushing || lane.ready || (linger && lane.oldestNanos <= lingeredBefore)
        while (inFlight < settings.maxInFlightPuts && lane.inFlight < lane.maxCalls && !lane.isEmpty && due) {
          dispatch(state, lane)
        }
      }
    }
    lock.notifyAll()
  }

  private def dispatch(state: StreamState, lane: Lane): Unit = {
    val call = packer.pack(lane)
    lane.inFlight += 1
    state.inFlight += 1
    inFlight += 1
    val job: Runnable = () => finish(state, lane, run(state.name, call))
    try threads.execute(job)
    catch {
      case e: Throwable =>
        lane.inFlight -= 1
        state.inFlight -= 1
        inFlight -= 1
        throw e
    }
  }

  /** On a put thread: the call, then (outside the lock) what a reshard asks for. */
  private def run(stream: String, call: IndexedSeq[Packed]): Either[Throwable, (CallOutcome, Option[Resend])] =
    try {
      val outcome = attempts.send(stream, call)
      Right(outcome -> (if (outcome.misrouted.isEmpty) None else Some(resend(stream, outcome.misrouted))))
    } catch { case e: Throwable => Left(e) }

  private def finish(state: StreamState, lane: Lane, result: Either[Throwable, (CallOutcome, Option[Resend])]): Unit =
    lock.synchronized {
      lane.inFlight -= 1
      state.inFlight -= 1
      inFlight -= 1
      result match {
        case Left(e) => if (error.isEmpty) error = Some(e)
        case Right((outcome, again)) =>
          if (outcome.failedRows > 0) failures += outcome
          again.foreach { r =>
            state.remap = Some(r.shards)
            state.resend ++= r.rows
            // They were counted when their aggregate was stored; they count when they are stored again.
            counters.recordsWritten.addAndGet(-r.rows.size)
            counters.bytesWritten.addAndGet(-r.rows.map(_.entry.size.toLong).sum)
          }
      }
      try pump(linger = true)
      catch { case e: Throwable => if (error.isEmpty) error = Some(e) }
      lock.notifyAll() // The writer may wait for this call, in flush or after a failure.
    }

  /**
   * Kinesis stored some records on another shard than this writer's map named: the stream was
   * resharded since it listed the shards. Kinesis routes a record by its explicit hash key, so
   * a plain record is where it belongs anyway, but an aggregate's rows may belong to a sibling
   * of the shard it landed on, and readers (this connector, the KCL) drop rows outside the
   * range of the shard they read, as the KPL format asks. So the shards are listed again, and
   * the rows outside the range of the shard that took their aggregate are sent again, before
   * anything else of the stream, with the new map. Readers that do not check ranges see those
   * rows twice.
   */
  private def resend(stream: String, misrouted: Seq[(Packed, String)]): Resend = {
    val shards = listShards(stream)
    val rows = misrouted.flatMap { case (record, shardId) =>
      if (!record.aggregated) Nil
      else shards.rangeOf(shardId) match {
        case Some(range) => record.rows.filterNot(r => range.contains(hashKeyOf(r.entry)))
        case None => record.rows // A shard ListShards does not name: send them all again.
      }
    }
    logWarning(s"PutRecords to stream '$stream': ${misrouted.size} records were stored on another shard than " +
      s"the one their shard map named (the stream was resharded); listed its shards again, and ${rows.size} rows " +
      "of aggregates that landed on a shard not owning their hash key are sent again")
    Resend(shards, rows)
  }

  /** Puts a stream's newer shard map in place: every queued row is routed again, rows to send again first. */
  private def remap(state: StreamState): Unit = {
    val rows = state.resend.toVector ++ state.lanes.flatMap(_.drain())
    state.resend.clear()
    state.shards = state.remap
    state.remap = None
    rows.foreach { row =>
      val (lane, key, target) = route(state, row.entry)
      lane.add(key, row.copy(target = target))
    }
  }

  private def listShards(stream: String): ShardMap = ShardMap(api.listShards(stream, ListShardsPageSize))

  /** After a failed call: waits for the calls in flight, then throws its error, or how many rows could not be written. */
  private def failIfAnyFailed(): Unit = if (error.isDefined || failures.nonEmpty || timerError.isDefined) {
    timerError.foreach(e => throw e)
    while (inFlight > 0 && !stopped) lock.wait()
    error.foreach(e => throw e)
    val failed = failures.map(_.failedRows).sum
    val codes = failures.flatMap(_.codes).groupBy(_._1).map { case (code, ns) =>
      code -> ns.map(_._2).sum
    }.toSeq.sortBy(-_._2)
    throw KinesisErrors.sinkPutFailed(failed, failures.map(_.stream).distinct.toSeq, where,
      failures.map(_.attempts).max, codes.map { case (code, n) => s"$code ($n)" })
  }

  private def threads: ExecutorService = {
    if (pool == null) pool = Executors.newFixedThreadPool(settings.maxInFlightPuts, PutThreads)
    pool
  }

  private def startLingerTimer(): Unit = if (lingerTimer == null) {
    lingerTimer = Executors.newSingleThreadScheduledExecutor(LingerThreads)
    val period = math.max(1L, settings.maxPutLingerMs / 2)
    val tick: Runnable = () =>
      try sendLingering()
      catch {
        case e: Throwable => lock.synchronized {
            if (timerError.isEmpty) timerError = Some(e)
            lock.notifyAll()
          }
      }
    lingerTimer.scheduleWithFixedDelay(tick, period, period, TimeUnit.MILLISECONDS)
  }
}

object PutRecordsBatcher {
  /** ListShards pages: most streams in one call. */
  private val ListShardsPageSize = 1000

  /** The one order key of a stream's rows when their order does not matter. */
  private object Unordered

  /** A new shard map, and the rows to send again with it. */
  private final case class Resend(shards: ShardMap, rows: Seq[Pending])

  private def hashKeyOf(e: PutEntry): BigInt = HashKeyRange.hashKeyOf(e.partitionKey, e.explicitHashKey)

  private object LingerThreads extends ThreadFactory {
    override def newThread(r: Runnable): Thread = {
      val t = new Thread(r, "kinesis-put-linger")
      t.setDaemon(true)
      t
    }
  }

  private object PutThreads extends ThreadFactory {
    private val count = new AtomicInteger()
    override def newThread(r: Runnable): Thread = {
      val t = new Thread(r, s"kinesis-put-${count.incrementAndGet()}")
      t.setDaemon(true)
      t
    }
  }
}
