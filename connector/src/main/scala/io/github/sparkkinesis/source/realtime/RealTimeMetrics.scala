// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source.realtime

/**
 * The source metrics of a real-time query's progress, from what the tasks reported with their
 * offsets: how far behind the tip each shard was when the batch ended, what was read, how
 * often Kinesis throttled, what retention deleted before it was read, and (EFO) the
 * subscriptions open and renewed. Counters add up over
 * the query's life; gauges are those of the last batch.
 */
private[realtime] final class RealTimeMetrics {
  private var recordsRead = 0L
  private var bytesRead = 0L
  private var throttleEvents = 0L
  private var subscribeCalls = 0L
  private var resubscriptions = 0L
  private var dataLossEvents = 0L
  private var liveSubscriptions = 0L
  private var behind = Seq.empty[Long]
  private var trackedShards = 0
  private var readerTasks = 0

  def planned(tracked: Int, tasks: Int): Unit = synchronized {
    trackedShards = tracked
    readerTasks = tasks
  }

  def batchEnded(ends: Seq[ShardPartitionOffset]): Unit = synchronized {
    val stats = ends.map(_.stats)
    recordsRead += stats.map(_.records).sum
    bytesRead += stats.map(_.bytes).sum
    throttleEvents += stats.map(_.throttleEvents).sum
    subscribeCalls += stats.map(_.subscribeCalls).sum
    resubscriptions += stats.map(_.resubscriptions).sum
    dataLossEvents += stats.map(_.dataLossEvents).sum
    liveSubscriptions = stats.map(_.liveSubscriptions).sum
    behind = stats.map(_.millisBehindLatest).filter(_ >= 0)
  }

  /** `expiredShards`: shards that expired before the query read them to their end ([[io.github.sparkkinesis.source.ShardTracker]]). */
  def toMap(efo: Boolean, expiredShards: Long = 0L): Map[String, String] = synchronized {
    val lag = if (behind.isEmpty) Map.empty[String, String]
    else Map(
      "avgMsBehindLatest" -> (behind.sum.toDouble / behind.size).toString,
      "maxMsBehindLatest" -> behind.max.toString,
      "minMsBehindLatest" -> behind.min.toString)
    val subscriptions = if (!efo) Map.empty[String, String]
    else Map(
      "liveSubscriptions" -> liveSubscriptions.toString,
      "subscribeCalls" -> subscribeCalls.toString,
      "resubscriptions" -> resubscriptions.toString)
    lag ++ subscriptions ++ Map(
      "fetchedRecords" -> recordsRead.toString,
      "fetchedBytes" -> bytesRead.toString,
      "throttleEvents" -> throttleEvents.toString,
      "dataLossEvents" -> (dataLossEvents + expiredShards).toString,
      "trackedShards" -> trackedShards.toString,
      "realTimeTasks" -> readerTasks.toString)
  }
}
