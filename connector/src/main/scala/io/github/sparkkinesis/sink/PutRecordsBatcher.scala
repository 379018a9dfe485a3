package io.github.sparkkinesis.sink

import java.util.concurrent.{Callable, ExecutionException, ExecutorService, Executors, Future, ScheduledExecutorService,
  Semaphore, ThreadFactory, ThreadLocalRandom, TimeUnit}
import java.util.concurrent.atomic.AtomicInteger

import scala.collection.mutable

import org.apache.spark.internal.Logging

import io.github.sparkkinesis.client.{KinesisPutApi, PutEntry, PutFailure, RetryPolicy, Retryable}
import io.github.sparkkinesis.errors.KinesisErrors
import io.github.sparkkinesis.options.PutSettings
import io.github.sparkkinesis.time.{Clock, SystemClock}

/**
 * Groups one task's records into PutRecords calls within the Kinesis limits (and the sink's
 * own `maxRecordsPerPut` / `maxBytesPerPut`), one group per stream, and keeps at most
 * `maxInFlightPuts` calls running; the writer blocks while all are busy, so memory stays
 * bounded. Records Kinesis refuses are sent again after a jittered, doubling back-off, up to
 * `maxPutRetries` times; then [[flush]] fails with how many records could not be written and
 * why. No record is dropped silently: each one is either stored by Kinesis or counted in that
 * failure.
 *
 * A record waits at most `maxPutLinger` for its group to fill: a timer sends older groups as
 * they are, so rows that come slowly (a real-time query's) reach Kinesis at once rather than
 * when the task ends. One task's writer thread calls it; the timer takes the same lock.
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

  private final class Group {
    val entries = mutable.ArrayBuffer.empty[PutEntry]
    var bytes = 0L
    var firstAddedNanos = 0L
  }

  private val lock = new Object
  private var lingerTimer: ScheduledExecutorService = _
  // An error of a call the timer sent, thrown to the writer at its next call.
  private var timerError: Option[Throwable] = None

  private val retries = RetryPolicy.putRecords(settings.maxPutRetries, settings.retryBackoffMs, settings.maxRetryBackoffMs)
  private val groups = mutable.LinkedHashMap.empty[String, Group]
  private val slots = new Semaphore(settings.maxInFlightPuts)
  private var pool: ExecutorService = _
  private val running = mutable.ArrayBuffer.empty[Future[Outcome]]
  private val failures = mutable.ArrayBuffer.empty[Outcome]
  @volatile private var someRecordFailed = false

  /** Queues a record; sends its stream's group first if the record would not fit in it. */
  def add(stream: String, entry: PutEntry): Unit = lock.synchronized {
    timerError.foreach(e => throw e)
    startLingerTimer()
    val group = groups.getOrElseUpdate(stream, new Group)
    if (group.entries.nonEmpty && group.bytes + entry.size > settings.maxBytesPerPut) send(stream, group)
    if (group.entries.isEmpty) group.firstAddedNanos = clock.nanoTime()
    group.entries += entry
    group.bytes += entry.size
    if (group.entries.size >= settings.maxRecordsPerPut || group.bytes >= settings.maxBytesPerPut) {
      send(stream, group)
    }
  }

  /** Sends every queued record and waits for all calls; throws if any record could not be written. */
  def flush(): Unit = lock.synchronized {
    timerError.foreach(e => throw e)
    groups.foreach { case (stream, group) => if (group.entries.nonEmpty) send(stream, group) }
    awaitAll()
  }

  /** Drops what is still queued and stops the calls in flight (the task failed). */
  def abort(): Unit = lock.synchronized {
    groups.clear()
    running.foreach(_.cancel(true))
    running.clear()
  }

  /** Ends the threads; always called when the task ends. */
  def close(): Unit = lock.synchronized {
    if (lingerTimer != null) lingerTimer.shutdownNow()
    if (pool != null) pool.shutdownNow()
  }

  /**
   * Sends every group whose first record waited `maxPutLinger` or longer (the timer calls it).
   * After a failure it sends nothing more: the writer's next call fails the task.
   */
  private[sink] def sendLingering(): Unit = lock.synchronized {
    val now = clock.nanoTime()
    if (!someRecordFailed) groups.foreach { case (stream, group) =>
      if (group.entries.nonEmpty && now - group.firstAddedNanos >= settings.maxPutLingerMs * 1000000L) {
        send(stream, group)
      }
    }
  }

  private def startLingerTimer(): Unit = if (lingerTimer == null) {
    lingerTimer = Executors.newSingleThreadScheduledExecutor(LingerThreads)
    val period = math.max(1L, settings.maxPutLingerMs / 2)
    val tick: Runnable = () => try sendLingering() catch {
      case e: Throwable => lock.synchronized(if (timerError.isEmpty) timerError = Some(e))
    }
    lingerTimer.scheduleWithFixedDelay(tick, period, period, TimeUnit.MILLISECONDS)
  }

  private def send(stream: String, group: Group): Unit = {
    val batch = group.entries.toIndexedSeq
    group.entries.clear()
    group.bytes = 0
    if (someRecordFailed) awaitAll() // Fails the task now rather than after sending the rest.
    slots.acquire()
    val job: Callable[Outcome] = () => try putWithRetries(stream, batch) finally slots.release()
    try running += threads.submit(job) catch { case e: Throwable => slots.release(); throw e }
    collectFinished()
  }

  private def threads: ExecutorService = {
    if (pool == null) pool = Executors.newFixedThreadPool(settings.maxInFlightPuts, PutThreads)
    pool
  }

  private def collectFinished(): Unit = {
    val (done, pending) = running.partition(_.isDone)
    running.clear()
    running ++= pending
    done.foreach(outcomeOf)
  }

  private def awaitAll(): Unit = {
    val all = running.toList
    running.clear()
    all.foreach(outcomeOf)
    if (failures.nonEmpty) {
      val failed = failures.map(_.failed).sum
      val codes = failures.flatMap(_.codes).groupBy(_._1).map { case (code, ns) => code -> ns.map(_._2).sum }.toSeq.sortBy(-_._2)
      throw KinesisErrors.sinkPutFailed(failed, failures.map(_.stream).distinct.toSeq, where,
        failures.map(_.attempts).max, codes.map { case (code, n) => s"$code ($n)" })
    }
  }

  /** Waits for one call; an error other than refused records (a missing stream) is thrown as is. */
  private def outcomeOf(future: Future[Outcome]): Unit = {
    val outcome = try future.get() catch { case e: ExecutionException => throw e.getCause }
    if (outcome.failed > 0) failures += outcome
  }

  /** Sends one group until Kinesis stored every record, or gives up on those it keeps refusing. */
  private def putWithRetries(stream: String, batch: IndexedSeq[PutEntry]): Outcome = {
    var pending = batch
    var attempts = 0
    while (true) {
      counters.putRequests.incrementAndGet()
      val results = api.putRecords(stream, pending)
      attempts += 1
      val refused = mutable.ArrayBuffer.empty[(PutEntry, PutFailure)]
      var stored = 0L
      var bytes = 0L
      results.iterator.zip(pending.iterator).foreach {
        case (None, entry) =>
          stored += 1
          bytes += entry.size
        case (Some(failure), entry) =>
          refused += entry -> failure
          if (Retryable.ThrottlingCodes.contains(failure.code)) counters.throttledRecords.incrementAndGet()
      }
      counters.recordsWritten.addAndGet(stored)
      counters.bytesWritten.addAndGet(bytes)
      if (refused.isEmpty) return Outcome(stream, 0, Map.empty, attempts)

      val (retry, giveUp) = refused.partition { case (_, f) => Retryable.entryCode(f.code) }
      val codes = summary(refused.map(_._2))
      if (retry.nonEmpty && giveUp.isEmpty && attempts < retries.maxAttempts) {
        val waitMs = backoffMs(attempts - 1)
        logInfo(s"PutRecords to stream '$stream': ${refused.size} of ${pending.size} records refused " +
          s"(${codes.mkString(", ")}); sending them again in ${waitMs}ms (retry $attempts of " +
          s"${settings.maxPutRetries})")
        counters.putRetries.addAndGet(retry.size)
        clock.sleepNanos(waitMs * 1000000L)
        pending = retry.map(_._1).toIndexedSeq
      } else {
        logWarning(s"PutRecords to stream '$stream': giving up on ${refused.size} records after " +
          s"$attempts attempts (${codes.mkString(", ")}); first refusal: ${refused.head._2.message}")
        counters.failedRecords.addAndGet(refused.size)
        someRecordFailed = true
        return Outcome(stream, refused.size, refused.groupBy(_._2.code).map { case (code, rs) => code -> rs.size }.toMap, attempts)
      }
    }
    throw new IllegalStateException("unreachable")
  }

  private[sink] def backoffMs(retry: Int): Long = retries.backOff.delayMs(retry, jitter())
}

object PutRecordsBatcher {
  /** What one group's calls came to: how many records were given up, with which last error codes. */
  private final case class Outcome(stream: String, failed: Int, codes: Map[String, Int], attempts: Int)


  private def summary(failures: Iterable[PutFailure]): Seq[String] =
    failures.groupBy(_.code).map { case (code, fs) => code -> fs.size }.toSeq.sortBy(-_._2).map { case (code, n) => s"$code: $n" }

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
