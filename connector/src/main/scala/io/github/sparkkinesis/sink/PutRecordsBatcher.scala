// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import java.util.concurrent.{CompletableFuture, ExecutionException, ThreadLocalRandom}

import scala.collection.mutable

import io.github.sparkkinesis.client.{KinesisPutApi, PutEntry}
import io.github.sparkkinesis.options.PutSettings
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
 * and each call packs a shard's rows into KPL aggregates. See [[PutCalls]] for what happens
 * when the stream was resharded since.
 *
 * A record waits at most `maxPutLinger` for its call to fill: a timer sends older lanes as
 * they are, so rows that come slowly (a real-time query's) reach Kinesis at once rather than
 * when the task ends.
 *
 * Threads (ARCHITECTURE.md, "Who owns what", the sink batcher): one task's writer thread calls it.
 * What changes lives in a [[SendLoop]], owned by its strand: the writer, the put threads and
 * the linger timer only hand it tasks, and the writer waits outside it for the answer to its
 * own (a row queued, a flush done, a failure). Remote calls run outside the strand: ListShards
 * for a stream's first row on the writer, the calls and their retries on put threads.
 */
final class PutRecordsBatcher(
    api: KinesisPutApi,
    settings: PutSettings,
    where: String,
    counters: KinesisSinkCounters,
    clock: Clock = SystemClock,
    jitter: () => Double = () => ThreadLocalRandom.current().nextDouble()) {

  private val attempts = new PutAttempts(api, settings, counters, clock, jitter)
  private val calls = new PutCalls(api, attempts)
  private val loop: SendLoop = new SendLoop(settings, where, counters, calls, clock)
  /** The writer's own: streams whose shards it listed (aggregating). */
  private val listed = mutable.Set.empty[String]

  /** Queues a record (with its id, see [[TaskRecordIds]]); waits while its lane is full, sending what is ready. */
  def add(stream: String, entry: PutEntry, recordId: Option[String] = None): Unit = {
    val shards = if (settings.aggregate && !listed(stream)) {
      val map = calls.listShards(stream) // Outside the strand: a remote call.
      listed += stream
      Some(map)
    } else None
    awaitAnswer(answer => loop.add(stream, entry, recordId, shards, answer))
  }

  /** Sends every queued record and waits for all calls; throws if any record could not be written. */
  def flush(): Unit = awaitAnswer(loop.flush)

  /** Drops what is still queued and stops the calls in flight (the task failed). */
  def abort(): Unit = loop.stop(dropQueued = true)

  /** Ends the threads; always called when the task ends. */
  def close(): Unit = loop.stop(dropQueued = false)

  /**
   * Sends every lane whose oldest record waited `maxPutLinger` or longer (the timer's task).
   * After a failure it sends nothing more: the writer's next call fails the task.
   */
  private[sink] def sendLingering(): Unit = loop.tick()

  private[sink] def backoffMs(retry: Int): Long = attempts.backoffMs(retry)

  /** Calls started and not yet finished (their outcome taken in): 0 once the batcher is idle. */
  private[sink] def callsInFlight: Int = loop.callsInFlight

  /** Rows queued and not yet in a call. */
  private[sink] def queuedRows: Int = loop.queuedRows

  /** Hands `task` to the send loop and waits for its answer; throws the failure it answers with, as it is. */
  private def awaitAnswer(task: SendLoop.Answer => Unit): Unit = {
    val answer = new CompletableFuture[Unit]()
    task(answer)
    try answer.get()
    catch { case e: ExecutionException => throw e.getCause }
  }
}
