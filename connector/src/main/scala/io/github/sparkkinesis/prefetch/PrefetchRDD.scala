// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import org.apache.spark.{Partition, SparkContext, TaskContext}
import org.apache.spark.rdd.RDD

import io.github.sparkkinesis.client.ConnectionConfig
import io.github.sparkkinesis.client.sdk.KinesisClients
import io.github.sparkkinesis.efo.{EfoMetrics, SubscriptionShardReader}

/**
 * One prefetch task: a few shards, and the executor that read them last time, if any. With no
 * shards, a task sent to an executor only to close the query's readers there.
 */
final case class PrefetchPartition(index: Int, requests: Seq[ShardFetchRequest], preferredLocation: Option[String])
  extends Partition

/** The Spark job that runs one round of prefetch tasks on the executors. */
final class PrefetchRDD(
    sc: SparkContext,
    // Only the driver needs them all (each task gets its own): not in every task's binary.
    @transient private val tasks: Seq[PrefetchPartition],
    connection: ConnectionConfig,
    work: PrefetchWork)
  extends RDD[PrefetchResult](sc, Nil) {

  override protected def getPartitions: Array[Partition] = tasks.toArray

  override protected def getPreferredLocations(split: Partition): Seq[String] =
    split.asInstanceOf[PrefetchPartition].preferredLocation.toSeq

  override def compute(split: Partition, context: TaskContext): Iterator[PrefetchResult] = {
    // The task uses the clients while it runs, besides the query's hold (holdClients): a task
    // still running when its query stopped (a cancelled round ending its calls) then closes
    // what it built as it ends, rather than leaving it to the idle eviction.
    val held = KinesisClients.lease(connection)
    try run(split.asInstanceOf[PrefetchPartition])
    finally held.close()
  }

  private def run(task: PrefetchPartition): Iterator[PrefetchResult] = {
    if (!work.stopping) ExecutorCursors.holdClients(work.streamInstance, connection)
    val polling = PrefetchTask.pollingReader(KinesisClients.api(connection), work)
    val efoMetrics = EfoMetrics.of(work.streamInstance)
    val newReader = (r: ShardFetchRequest) =>
      work.consumers.get(r.shard.stream) match {
        case Some(consumerArn) =>
          val cursor = SubscriptionCursors.forQuery(connection, r.shard, consumerArn, r.from, work.fetch.failOnDataLoss,
            efoMetrics, r.rangeCheck)
          new SubscriptionShardReader(cursor, work.fetch.minFetchPeriodMs, work.fetch.maxRecordsPerFetch)
        case None => polling(r)
      }
    // Each hand-over carries the executor's subscription counts too: a job reads for a minute.
    def counts() = if (work.consumers.isEmpty || work.stopping) None else Some(efoMetrics.snapshot())
    val report =
      work.reportTo.map(name => (r: PrefetchResult) => PrefetchReports.send(name)(r.copy(subscriptions = counts())))
    val result = PrefetchTask.run(newReader, task.requests, work, report = report)
    // Taken after the task's readers went back to the cache and the unowned ones were closed.
    if (work.stopping) {
      EfoMetrics.forget(work.streamInstance)
      PrefetchReports.forget(work.streamInstance)
    }
    Iterator.single(result.copy(subscriptions = counts()))
  }
}
