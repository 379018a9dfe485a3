// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import io.github.sparkkinesis.client.{KinesisPutApi, PutEntry}
import io.github.sparkkinesis.client.sdk.KinesisClients
import io.github.sparkkinesis.options.KinesisSinkOptions
import io.github.sparkkinesis.time.{Clock, SystemClock}

/**
 * One task's records on their way to Kinesis, whichever Spark interface hands them over (the
 * DSv2 writer, the foreach writer): each is checked against its stream's record size limit and
 * queued in the task's [[PutRecordsBatcher]], which sends, retries and keeps order per key.
 * With `recordIds` (`ids`), each record gets the next id of the task, and is checked as the
 * Kinesis record it is when it goes alone (a KPL aggregate of itself, see [[Pending.alone]]).
 * The task holds the connection's clients in its JVM until it closes, so a query stopping
 * meanwhile does not close them under it.
 */
final class TaskPuts(options: KinesisSinkOptions, api: KinesisPutApi, clock: Clock = SystemClock,
    ids: Option[TaskRecordIds] = None) {
  private val clients = KinesisClients.lease(options.connection)
  val counters = new KinesisSinkCounters
  private val batcher = new PutRecordsBatcher(api, options.put, options.connection.where, counters, clock)
  private val sizeLimits = new RecordSizeLimits(api)

  /** Queues a record; waits while its lane is full. */
  def add(stream: String, entry: PutEntry): Unit = ids match {
    case None =>
      sizeLimits.check(stream, entry)
      batcher.add(stream, entry)
    case Some(task) =>
      val id = Some(task.next())
      sizeLimits.check(stream, entry, Pending.aloneSize(entry, id))
      batcher.add(stream, entry, id)
  }

  /** Returns once Kinesis stored every record queued; throws if any could not be written. */
  def flush(): Unit = batcher.flush()

  /** Drops what is queued (the task failed): a task run again sends it again. */
  def abort(): Unit = batcher.abort()

  /** Ends the task's put threads; always called at the end. */
  def close(): Unit =
    try batcher.close()
    finally clients.close()
}
