// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import scala.util.control.NonFatal

import org.apache.spark.SparkContext
import org.apache.spark.internal.Logging

import io.github.sparkkinesis.client.ConnectionConfig

/**
 * When a query stops, its readers on the other executors are closed, and its lease on their
 * clients released, by a Spark job with one task on each (those in the driver's JVM are closed
 * directly), in every mode (prefetching or real-time): an EFO subscription would
 * otherwise stay open until its reader falls idle, and Kinesis lets a new subscription take a
 * shard over only 5 s after the last one. Best effort and bounded: the stopping thread waits
 * at most [[ReaderRelease.TimeoutMs]], then cancels the job.
 */
private[sparkkinesis] object ReaderRelease extends Logging {
  val TimeoutMs = 15000L

  /** Closes the readers (and lets go of the clients) of `streamInstance` on `executors`, other than this JVM. */
  def onExecutors(sc: SparkContext, connection: ConnectionConfig, executors: Seq[String], settings: PrefetchSettings,
      streamInstance: String, queryName: String): Unit =
    run(sc, connection, PrefetchRound.closingReaders(executors, settings, streamInstance, streamKey = 0), queryName)

  def run(sc: SparkContext, connection: ConnectionConfig, round: PrefetchRound, queryName: String): Unit = {
    val executors = round.tasks.size
    if (executors == 0 || sc.isStopped) return
    val group = s"kinesis-release-${round.work.streamInstance}"
    val job = new Thread(() => {
        sc.setJobGroup(group, s"Kinesis readers of $queryName closed", interruptOnCancel = true)
        sc.setLocalProperty("spark.sql.execution.id", null)
        try {
          sc.runJob(new PrefetchRDD(sc, round.tasks, connection, round.work), (_: Iterator[PrefetchResult]) => ())
          logInfo(s"Closed the readers of $queryName on $executors executors")
        } catch { case NonFatal(e) => logInfo(s"Could not close the readers of $queryName on every executor: $e") }
      }, s"kinesis-release-$queryName")
    job.setDaemon(true)
    job.start()
    job.join(TimeoutMs)
    if (job.isAlive) {
      logInfo(s"Closing the readers of $queryName on $executors executors took too long; " +
        "their subscriptions end when Kinesis ends them (within 5 minutes)")
      sc.cancelJobGroup(group)
    }
  }
}
