// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import io.github.sparkkinesis.offsets.ShardKey

/** One Spark job of prefetch tasks, and what every task of it is asked to do. */
final case class PrefetchRound(tasks: Seq[PrefetchPartition], work: PrefetchWork)

object PrefetchRound {

  /**
   * A round reading `requests`: the shards in order, `shardsPerTask` to a task (more when that
   * would need more than half of the cluster's `slots`, or all of them in the first round), each task sent to the executor holding
   * its first shard's reader (`owners`), sharing `room` bytes of the buffer; then one task for
   * each of `cleanups`, an executor that only has readers to close.
   * The first round, and every round of Trigger.AvailableNow (`splitAt`), ends as soon as its
   * shards are at the tip, so a trigger waiting for it is not held up. Every round but the first
   * (which the first trigger waits for) hands its blocks to the driver's endpoint `reportTo` as it
   * stores them, at least every `maxFetchDuration`, and reads on for [[JobMs]]: a backlog then
   * takes a Spark job per minute, not one per `handOverBytes` (make bench, row `polling`), and so
   * does a stream at a steady pace, not one per `maxFetchDuration` (row `steady`).
   */
  def reading(
      requests: Seq[ShardFetchRequest],
      owners: Map[ShardKey, String],
      cleanups: Seq[String],
      room: Long,
      splitAt: Option[Long],
      firstRound: Boolean,
      slots: Int,
      reportTo: String,
      consumers: Map[String, String],
      settings: PrefetchSettings,
      streamInstance: String,
      streamKey: Int,
      tipFetchPeriodMs: Long = 0L): PrefetchRound = {
    // The first round may take every slot: the first trigger waits for it, so no batch runs yet.
    val maxTasks = if (firstRound) slots else slots / 2
    val groups = requests.sortBy(_.shard).grouped(shardsPerTask(requests.size, settings.shardsPerTask, maxTasks)).toSeq
    val fetching = groups.map(group => (group, owners.get(group.head.shard)))
    val tasks = (fetching ++ cleanups.map(location => (Nil, Some(location)))).zipWithIndex.map {
      case ((group, location), i) => PrefetchPartition(i, group, location)
    }
    val returnWhenCaughtUp = splitAt.isDefined || firstRound
    val work = PrefetchWork(streamInstance, streamKey, settings.fetch, math.max(1L, room / groups.size),
      splitAt, returnWhenCaughtUp, consumers = consumers, owners = owners,
      reportTo = if (firstRound) None else Some(reportTo), handOverBytes = settings.handOverBytes,
      tipFetchPeriodMs = tipFetchPeriodMs, blockCut = BlockCut.of(settings.limits, requests.size),
      jobMs = if (firstRound) 0L else JobMs)
    PrefetchRound(tasks, work)
  }

  /**
   * How long a round's tasks read, handing over as they go, unless the driver ends the round
   * sooner (its shards changed, the buffer is full, the query stopped): each round is a Spark
   * job, whose scheduling costs the driver and executors far more than a hand-over.
   */
  val JobMs = 60000L

  /**
   * Shards per task: `shardsPerTask`, or more when the round would otherwise need more than
   * `maxTasks` tasks. Tasks beyond the cluster's slots would only queue (a round of 200 tasks
   * took minutes on 2 cores), and after the first round half of the slots is left to the batches.
   */
  def shardsPerTask(shards: Int, shardsPerTask: Int, maxTasks: Int): Int = {
    val tasks = math.max(1, maxTasks)
    math.max(shardsPerTask, (shards + tasks - 1) / tasks)
  }

  /** A stopped query's last job: one task on each of `executors` that only closes the query's readers there. */
  def closingReaders(executors: Seq[String], settings: PrefetchSettings, streamInstance: String,
      streamKey: Int): PrefetchRound = {
    val tasks = executors.zipWithIndex.map { case (location, i) => PrefetchPartition(i, Nil, Some(location)) }
    PrefetchRound(tasks,
      PrefetchWork(streamInstance, streamKey, settings.fetch, 1L, None,
        returnWhenCaughtUp = true, stopping = true))
  }
}
