// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source.realtime

import java.util.UUID

import scala.util.control.NonFatal

import org.apache.spark.SparkContext
import org.apache.spark.internal.Logging
import org.apache.spark.sql.kinesis.{KinesisBlockStore, KinesisTaskSlots}

import io.github.sparkkinesis.client.KinesisApi
import io.github.sparkkinesis.errors.KinesisErrors
import io.github.sparkkinesis.options.{KinesisOptions, KinesisSourceOptions}
import io.github.sparkkinesis.offsets.{KinesisSourceOffset, ShardKey, ShardPosition}
import io.github.sparkkinesis.prefetch.{ExecutorCursors, PrefetchSettings, ReaderRelease}
import io.github.sparkkinesis.source.{EfoConsumers, FirstRecords, ShardTracker}

/**
 * The driver side of real-time mode, free of Spark's real-time interfaces (see
 * [[KinesisRealTimeStream]]). Each batch it lists the shards and follows resharding
 * (ARCHITECTURE.md invariant 2) but prefetches nothing: it plans one task per readable shard,
 * starting exactly where the last batch ended, and merges the positions the tasks report into
 * the batch's end offset (invariant 1). A shard closed during a batch ends its task early;
 * its children are found by the next batch's listing and read from then on.
 */
final class RealTimeReads(options: KinesisSourceOptions, kinesis: => KinesisApi, sparkContext: => SparkContext,
    name: String, slots: SparkContext => Int = KinesisTaskSlots.available) extends Logging {

  /** Names this query's readers on the executors, which keep them between batches. */
  val streamInstance: String = UUID.randomUUID().toString

  private val shards = new ShardTracker(options, kinesis, name)
  private val consumers = options.efo.map(efo => new EfoConsumers(options, efo, sparkContext, name))
  private val progress = new RealTimeMetrics
  private var tracked: Option[(KinesisSourceOffset, KinesisSourceOffset)] = None // (start, start + new shards)
  private var planned: Option[KinesisSourceOffset] = None
  private var owners = Map.empty[ShardKey, String]
  private var readAt = Set.empty[String] // every executor a task of the query ran on
  private var consumerDeleted = false

  /** Refuses, naming the first, the options that cannot apply in real-time mode. */
  def checkOptions(): Unit =
    KinesisOptions.notInRealTime.foreach { spec =>
      val reason = if (RealTimeReads.TriggerLimitOptions.contains(spec)) RealTimeReads.NoTriggerLimit
      else RealTimeReads.NoPrefetch
      options.givenName(spec).foreach(typed => throw KinesisErrors.optionNotInRealTime(typed, reason))
    }

  /**
   * The batch's start with the shards found since (children of a reshard, new shards): Spark
   * asks before every batch. Nothing is read here; when no shard can be read at all (every one
   * closed, children not listed yet) it waits `shardFetchInterval`, so batches do not spin.
   */
  def latestOffset(start: KinesisSourceOffset): KinesisSourceOffset = {
    shards.checkSameStreams(start)
    val withNew = KinesisSourceOffset(shards.trackNewShards(start.shards, force = true),
      start.streamsCreatedAt ++ shards.streamsCreatedAt)
    if (shards.readable(withNew.shards).isEmpty) Thread.sleep(options.shardFetchIntervalMs)
    tracked = Some(start -> withNew)
    withNew
  }

  /** One task per readable shard, on the executor whose reader stands where the shard's batch starts. */
  def plan(start: KinesisSourceOffset): Seq[RealTimeShardPartition] = {
    val offset = tracked.collect { case (s, withNew) if s == start => withNew }.getOrElse(latestOffset(start))
    planned = Some(offset)
    owners = owners.filter { case (shard, _) => offset.shards.contains(shard) }
    val arns = consumers.map(_.resolve(force = consumerDeleted)).getOrElse(Map.empty)
    consumerDeleted = false
    val readable = shards.readable(offset.shards).toSeq.sortBy(_._1)
    TaskSlots.check(sparkContext, readable.size, options.streamNames, slots)
    progress.planned(offset.shards.size, readable.size)
    readable.map { case (shard, from) =>
      RealTimeShardPartition(shard, from, arns.get(shard.stream), streamInstance, owners, shards.rangeChecks.get(shard))
    }
  }

  /** The batch's end: where each task stopped, and the start of every shard that had no task. */
  @volatile private var stopped = false

  def merge(ends: Seq[ShardPartitionOffset]): KinesisSourceOffset = {
    val start = planned.getOrElse(throw new IllegalStateException(s"$name: offsets merged before a batch was planned"))
    owners ++= ends.map(e => e.shard -> e.location)
    readAt ++= ends.map(_.location)
    val deletedAt = ends.filter(_.consumerDeleted).map(_.shard)
    if (deletedAt.nonEmpty) {
      logWarning(s"$name: the enhanced fan-out consumer was deregistered outside the query (seen reading " +
        s"${deletedAt.mkString(", ")}); the next batch registers it again and reads on from this batch's end")
      consumerDeleted = true
    }
    progress.batchEnded(ends)
    KinesisSourceOffset(start.shards ++ ends.map(e => e.shard -> named(e.shard, e.position)), start.streamsCreatedAt)
  }

  /**
   * A task that returned nothing ends where it started; when that start names no record, the end
   * names the shard's first record there now instead ([[FirstRecords]]), so that a restart can
   * tell whether retention deleted any of them before they were read.
   */
  private def named(shard: ShardKey, position: ShardPosition): ShardPosition =
    // A batch merged as the query stops is never committed; a look then would open the
    // connection's clients again after the stream let go of them.
    if (stopped) position else FirstRecords.named(kinesis, shard, position, name, efo = options.efo.isDefined)

  def metrics: Map[String, String] = progress.toMap(efo = options.efo.isDefined, expiredShards = shards.dataLossEvents)

  /**
   * Readers kept in this JVM close now (all of them in local mode), and those on the executors
   * the query's tasks ran on by a last job ([[ReaderRelease]]), which lets go of their clients too.
   */
  def stop(): Unit = {
    stopped = true
    ExecutorCursors.forget(streamInstance)
    val driver =
      try KinesisBlockStore.thisExecutorLocation
      catch { case NonFatal(_) => "" }
    val elsewhere = readAt.toSeq.sorted.filterNot(_ == driver)
    if (elsewhere.nonEmpty) {
      ReaderRelease.onExecutors(sparkContext, options.connection, elsewhere,
        PrefetchSettings(options.fetch, options.buffer.shardsPerTask, options.buffer.fetchBufferSize), streamInstance,
        name)
    }
    consumers.foreach(_.stop())
  }
}

object RealTimeReads {
  val TriggerLimitOptions: Set[KinesisOptions.OptionSpec] = Set(KinesisOptions.MaxRecordsPerTrigger,
    KinesisOptions.MaxBytesPerTrigger, KinesisOptions.MaxRecordsPerShardPerTrigger)

  val NoTriggerLimit = "a real-time batch is bounded by its duration, not by a count: each record is returned as " +
    "it arrives; use a micro-batch trigger to bound a batch's size"

  val NoPrefetch = "it tunes prefetching, and real-time mode prefetches nothing: every open shard is read " +
    "directly by a task of its own, which returns each record as it arrives"
}
