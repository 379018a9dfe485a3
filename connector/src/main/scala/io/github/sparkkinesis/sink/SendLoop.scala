// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import java.util.concurrent.CompletableFuture

import scala.collection.mutable

import io.github.sparkkinesis.client.PutEntry
import io.github.sparkkinesis.errors.KinesisErrors
import io.github.sparkkinesis.options.PutSettings
import io.github.sparkkinesis.threads.Strand
import io.github.sparkkinesis.time.Clock

/**
 * Everything of one writer's puts that changes: the streams' lanes, the calls in flight, the
 * failures, the row the writer waits to queue, the flush it waits for. Owned by its own
 * strand, which no one else can reach: every public method hands a task to it, and only those
 * tasks touch this state, so there is no lock and no waiting in them. The writer hands in its
 * rows and flush, a put thread the end of its call ([[finished]]), the timer a [[tick]]. A task
 * answers the writer through the `CompletableFuture` it was given, which the writer waits on
 * outside the strand. Each task ends with [[settle]], which answers whatever its change allows.
 */
private[sink] final class SendLoop(
    settings: PutSettings,
    where: String,
    counters: KinesisSinkCounters,
    calls: PutCalls,
    clock: Clock) {
  import SendLoop._

  // A task that threw fails the writer's puts as a failed call does.
  private val strand = new Strand("kinesis-put", crashed)

  private val packer = new CallPacker(settings)
  private val threads = new PutThreads(settings.maxInFlightPuts)
  private val streams = mutable.LinkedHashMap.empty[String, StreamLanes]
  private var inFlight = 0
  /** The row the writer waits to queue: its lane is full, or its stream waits for a new shard map. */
  private var parked: Option[Parked] = None
  /** The writer's flush, answered once every stream is idle. */
  private var flushing: Option[Answer] = None
  /** Answers the writer waits for that fail once no call is in flight. */
  private val failing = mutable.ArrayBuffer.empty[Answer]
  /** Aborted or closed: nothing more is sent. */
  private var stopped = false
  private val failures = mutable.ArrayBuffer.empty[CallOutcome]
  private var error: Option[Throwable] = None

  /** Queues a row, answering once it is queued; the first row of a stream brings its shard map when aggregating. */
  def add(stream: String, entry: PutEntry, recordId: Option[String], shards: Option[ShardMap], answer: Answer): Unit =
    strand.run(() => queueRow(stream, entry, recordId, shards, answer))

  /** Sends everything queued; answers once every call finished. */
  def flush(answer: Answer): Unit = strand.run(() => flushAll(answer))

  /** Sends every lane whose oldest row waited `maxPutLinger` or longer (the timer's task). */
  def tick(): Unit = strand.run(() => sendLingering())

  /**
   * Stops sending, once the tasks handed in before have run: with `dropQueued` (abort) drops
   * what is queued and interrupts the calls; without (close) also ends the threads.
   */
  def stop(dropQueued: Boolean): Unit = strand.ask(stopSending(dropQueued))

  def callsInFlight: Int = strand.ask(inFlight)

  /** Rows queued in every lane, and to send again. */
  def queuedRows: Int = strand.ask(streams.valuesIterator.map(_.queuedRows).sum)

  // ---- the strand's ----

  private def queueRow(stream: String, entry: PutEntry, recordId: Option[String], shards: Option[ShardMap],
      answer: Answer): Unit = {
    if (failed) failing += answer
    else if (stopped) answer.complete(()) // The task failed or ended: the row is dropped, as queued ones are.
    else {
      threads.startTimer(math.max(1L, settings.maxPutLingerMs / 2), () => tick())
      val lanes = streams.getOrElseUpdate(stream, new StreamLanes(stream, settings))
      lanes.firstShards(shards)
      parked = Some(Parked(lanes, entry, recordId, answer))
    }
    settle()
  }

  private def flushAll(answer: Answer): Unit = {
    if (failed) failing += answer
    else {
      flushing = Some(answer)
      pump(linger = false)
    }
    settle()
  }

  private def sendLingering(): Unit = {
    pump(linger = true)
    settle()
  }

  /** A put thread's call ended: counts it, takes in what it asks for, sends what became ready. */
  private def finished(lanes: StreamLanes, lane: Lane, result: CallResult): Unit = {
    lanes.callEnded(lane)
    inFlight -= 1
    result.outcome match {
      case Left(e) => if (error.isEmpty) error = Some(e)
      case Right(outcome) => if (outcome.failedRows > 0) failures += outcome
    }
    result.again.foreach { r =>
      lanes.remapLater(r.shards, r.rows)
      // They were counted when their aggregate was stored; they count when they are stored again.
      counters.recordsWritten.addAndGet(-r.rows.size)
      counters.bytesWritten.addAndGet(-r.rows.map(_.entry.size.toLong).sum)
    }
    pump(linger = true)
    settle()
  }

  private def stopSending(dropQueued: Boolean): Unit = {
    stopped = true
    if (dropQueued) {
      streams.clear()
      threads.stopCalls()
    } else threads.stopAll()
    settle()
  }

  /** A task threw: the first error fails the task as a failed call does. */
  private def crashed(e: Throwable): Unit = {
    if (error.isEmpty) error = Some(e)
    settle()
  }

  private def failed: Boolean = error.isDefined || failures.nonEmpty

  /** Answers the writer where this task's change allows: its row queued, its flush done, its failure due. */
  private def settle(): Unit = {
    parked.foreach { p =>
      if (stopped) release(p)
      else if (failed) {
        parked = None
        failing += p.answer
      } else if (!queue(p)) {
        pump(linger = false)
        queue(p)
      }
    }
    flushing.foreach { f =>
      if (failed) {
        flushing = None
        failing += f
      } else if (stopped || !streams.valuesIterator.exists(_.hasWork)) {
        flushing = None
        f.complete(())
      }
    }
    // After a failed call, the writer hears of it once the calls in flight are done.
    if (failing.nonEmpty && (inFlight == 0 || stopped)) {
      val cause = failure
      failing.foreach(_.completeExceptionally(cause))
      failing.clear()
    }
  }

  /** Queues the parked row if its lane has room; false if it waits on. */
  private def queue(p: Parked): Boolean = {
    // Routed again every time: the stream's shards may have been mapped again meanwhile.
    val (lane, key, target) = p.lanes.route(p.entry)
    if (p.lanes.waitsForRemap || lane.overBound) false
    else {
      lane.add(key, Pending(p.entry, target, clock.nanoTime(), p.recordId))
      release(p)
      if (lane.ready) pump(linger = false)
      true
    }
  }

  private def release(p: Parked): Unit = {
    parked = None
    p.answer.complete(())
  }

  /**
   * Starts every call that may start: a lane with a full call waiting, or whose oldest record
   * lingered (`linger`), or any while flushing; within `maxInFlightPuts` and each lane's own
   * bound. A stream with a newer shard map gets it once none of its calls is in flight.
   */
  private def pump(linger: Boolean): Unit = if (!stopped && !failed) {
    val lingeredBefore = clock.nanoTime() - settings.maxPutLingerMs * 1000000L
    streams.valuesIterator.foreach { lanes =>
      lanes.remapIfIdle()
      if (!lanes.waitsForRemap) lanes.lanes.foreach { lane =>
        def due = flushing.isDefined || lane.ready || (linger && lane.oldestNanos <= lingeredBefore)
        while (inFlight < settings.maxInFlightPuts && lane.inFlight < lane.maxCalls && !lane.isEmpty && due) {
          dispatch(lanes, lane)
        }
      }
    }
  }

  private def dispatch(lanes: StreamLanes, lane: Lane): Unit = {
    val call = packer.pack(lane)
    lanes.callStarted(lane)
    inFlight += 1
    val job: Runnable = { () =>
      val result = calls.run(lanes.name, call) // On a put thread, outside the strand.
      strand.run(() => finished(lanes, lane, result))
    }
    try threads.execute(job)
    catch {
      case e: Throwable =>
        lanes.callEnded(lane)
        inFlight -= 1
        throw e
    }
  }

  /** The error of a call that threw, as it was; or how many rows could not be written, and why. */
  private def failure: Throwable = error.getOrElse {
    val failed = failures.map(_.failedRows).sum
    val codes = failures.flatMap(_.codes).groupBy(_._1).map { case (code, ns) =>
      code -> ns.map(_._2).sum
    }.toSeq.sortBy(-_._2)
    KinesisErrors.sinkPutFailed(failed, failures.map(_.stream).distinct.toSeq, where,
      failures.map(_.attempts).max, codes.map { case (code, n) => s"$code ($n)" })
  }
}

private[sink] object SendLoop {
  /** How a task answers the writer, who waits on it outside the strand. */
  type Answer = CompletableFuture[Unit]

  /** The writer's row that waits for room in its lane, and the answer the writer waits on. */
  private final case class Parked(lanes: StreamLanes, entry: PutEntry, recordId: Option[String], answer: Answer)
}
