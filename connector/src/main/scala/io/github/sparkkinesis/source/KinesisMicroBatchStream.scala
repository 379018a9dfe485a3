// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import java.util.Optional

import scala.jdk.CollectionConverters._

import org.apache.spark.SparkContext
import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReaderFactory}
import org.apache.spark.sql.connector.read.streaming._
import org.apache.spark.sql.kinesis.KinesisQueryTrigger

import io.github.sparkkinesis.client.KinesisApi
import io.github.sparkkinesis.client.sdk.KinesisClients
import io.github.sparkkinesis.metrics.{QueryGauges, QueryMetrics}
import io.github.sparkkinesis.options.KinesisSourceOptions
import io.github.sparkkinesis.offsets.{KinesisSourceOffset, ShardKey, ShardOrder, ShardPosition}
import io.github.sparkkinesis.prefetch.{PrefetchSettings, PrefetchTask, Prefetcher}

/**
 * The polling (GetRecords) micro-batch stream. A [[Prefetcher]] keeps reading ahead into
 * executor memory; each trigger takes in new shards ([[ShardTracker]]: listed while a reshard
 * is under way), ends the batch where the buffered data ends, and plans tasks that read the
 * buffered blocks where they live. Offsets name exact sequence numbers, so a batch re-run after a failure reads the
 * same records, from the blocks or, where they are gone, from Kinesis again.
 */
final class KinesisMicroBatchStream(
    options: KinesisSourceOptions,
    metadataPath: String,
    api: => KinesisApi,
    sparkContext: => SparkContext,
    idleWaitMs: Long = KinesisMicroBatchStream.IdleWaitMs,
    handOverBytes: Long = PrefetchTask.HandOverBytes)
  extends MicroBatchStream with SupportsTriggerAvailableNow with ReportsSourceMetrics with Logging {

  def this(options: KinesisSourceOptions, metadataPath: String) =
    this(options, metadataPath, KinesisClients.api(options.connection), SparkSession.active.sparkContext)

  private val name = s"KinesisV2[${options.streamNames.mkString(",")}]"
  // The driver's clients for this connection stay open until the last query using them stops.
  KinesisClients.acquire(options.connection)
  private lazy val kinesis = api
  @volatile private var prefetcherMade = false
  private lazy val prefetcher = {
    prefetcherMade = true
    new Prefetcher(sparkContext, options.connection,
      PrefetchSettings(options.fetch, options.buffer.shardsPerTask, options.buffer.fetchBufferSize, handOverBytes,
        options.limits),
      name)
  }

  private val shards = new ShardTracker(options, kinesis, name)
  private val consumers = options.efo.map(efo => new EfoConsumers(options, efo, sparkContext, name))
  private var availableNowSince: Option[Long] = None
  /** When the last Trigger.AvailableNow batch's end was set (`System.nanoTime`); see [[awaitAvailableNow]]. */
  private var availableNowBatchSetAt = 0L
  private var started = false
  // What the last trigger did, so that a trigger where nothing changed does no per-shard work
  // (10,000 shards: every step over all of them costs milliseconds): the start it released
  // blocks up to, the shards it handed the prefetcher, and the end it found.
  private var releasedUpTo = Map.empty[ShardKey, ShardPosition]
  private var followed: Option[(Map[ShardKey, ShardPosition], Long)] = None
  private var lastEnd: Option[LastEnd] = None
  // Spark reads the start offset back from its JSON at every trigger: the offset it came from is kept.
  @volatile private var lastOffset: Option[KinesisSourceOffset] = None
  @volatile private var lastIdleWaitMs = 0L
  /** How long the next trigger that finds nothing new waits: `idleWaitMs`, doubled after each such trigger. */
  private var nextIdleWaitMs = idleWaitMs
  /** The wait of the next trigger that finds nothing new (read on the stream thread, as it changes there). */
  private[source] def nextIdleWait: Long = nextIdleWaitMs
  // Under a processing-time trigger with an interval, Spark spaces the triggers itself: one that
  // waited for records would outlast the interval (Spark then warns that the query falls behind),
  // so a trigger that finds nothing answers at once. Asked of Spark on the query's stream thread.
  private lazy val sparkSpacesTriggers = KinesisQueryTrigger.processingIntervalMs(sparkContext).exists(_ > 0)
  // The limits of the trigger under way (Spark's ReadLimit and the options); None: all that is buffered.
  private var batchLimits: Option[BatchLimits.Limits] = None
  @volatile private var lastAvailable: Option[KinesisSourceOffset] = None
  @volatile private var gauges: Option[QueryGauges] = None
  private var published = Map.empty[ShardKey, ShardPosition]
  // Ranges of batches the tasks found deleted by retention (failOnDataLoss false); see ShardRangeReader.
  private lazy val rangesLost = sparkContext.longAccumulator(s"$name dataLossEvents")

  override def initialOffset(): Offset = {
    val store = new InitialOffsetStore(metadataPath, sparkContext.hadoopConfiguration)
    store.getOrCreate {
      val listed = shards.listShards()
      // Offsets may name other streams' shards (initialPosition as offset JSON): only ours count.
      // Each shard's start names its first record, so that a first batch run again after a
      // restart can tell whether retention deleted any of its records (FirstRecords).
      val starts = StartPositions.of(options.initialPosition, listed, System.currentTimeMillis())
      val named = FirstRecords.namedAll(kinesis, starts, name, efo = options.efo.isDefined)
      val offset = KinesisSourceOffset(named, shards.streamCreationTimes())
      logInfo(s"Initial offset of $name: ${offset.json()}")
      offset
    }
  }

  /** As Kafka's: `maxRecordsPerTrigger` as the rows Spark may admit; any limit at all makes it more than `allAvailable`. */
  override def getDefaultReadLimit: ReadLimit =
    if (options.limits.isEmpty) ReadLimit.allAvailable()
    else ReadLimit.maxRows(options.limits.maxRecords.getOrElse(Long.MaxValue))

  /** Where the data buffered now reaches, past the last batch's end when a limit cut it (the progress' `latestOffset`). */
  override def reportLatestOffset(): Offset = lastAvailable.orNull

  override def latestOffset(): Offset =
    throw new UnsupportedOperationException("latestOffset(Offset, ReadLimit) must be used instead")

  override def prepareForTriggerAvailableNow(): Unit = {
    val now = System.currentTimeMillis()
    availableNowSince = Some(now)
    availableNowBatchSetAt = System.nanoTime()
    prefetcher.readUntilArrival(now)
    logInfo(s"$name: Trigger.AvailableNow reads the records that arrived before $now")
  }

  override def latestOffset(start: Offset, limit: ReadLimit): Offset = {
    val startOffset = start.asInstanceOf[KinesisSourceOffset]
    batchLimits = BatchLimitsOf(limit, options)
    shards.checkSameStreams(startOffset)
    // Spark commits a batch's end only once the next batch runs: blocks up to `start` are no
    // longer needed now. Kept until then, a full fetchBufferSize would stop prefetching for good.
    release(startOffset.shards)
    val tracked = shards.trackNewShards(startOffset.shards, shardFetched = prefetcher.shardFetchedToEnd)
    follow(tracked)
    publish(tracked)
    consumers.foreach(c => prefetcher.useConsumers(c.resolve(force = prefetcher.takeConsumerDeleted())))
    prefetcher.start()
    if (!started) {
      // The first trigger waits for one round, so Trigger.Once and restarts find data at once.
      prefetcher.awaitRoundAfter(0, options.fetch.maxFetchDurationMs + KinesisMicroBatchStream.RoundGraceMs)
      started = true
    }
    availableNowSince.foreach(since => awaitAvailableNow(tracked, since))
    prefetcher.checkHealthy()
    val seen = prefetcher.appendedBlocks
    val found = endFrom(startOffset, tracked)
    val nothingNew = availableNowSince.isEmpty && (found eq startOffset) && !sparkSpacesTriggers
    // Wait for the next block here, so an idle query costs a call per wait, not one per 10 ms.
    val waitFrom = System.nanoTime()
    val end = if (nothingNew) {
      prefetcher.awaitBlocksAfter(seen, nextIdleWaitMs)
      prefetcher.checkHealthy()
      val after = endFrom(startOffset, tracked)
      nextIdleWaitMs =
        if (after ne startOffset) idleWaitMs
        else math.min(nextIdleWaitMs * 2, math.max(idleWaitMs, KinesisMicroBatchStream.LongestIdleWaitMs))
      after
    } else {
      nextIdleWaitMs = idleWaitMs
      found
    }
    lastIdleWaitMs = (System.nanoTime() - waitFrom) / 1000000L
    lastOffset = Some(end)
    end
  }

  /**
   * Where a batch from `start` ends: as far as the prefetched blocks reach on every readable
   * shard of `tracked`. `start` itself when that is nowhere further; the last answer again
   * while nothing it depends on changed (the start, the shards, the listing, the blocks).
   */
  private def endFrom(start: KinesisSourceOffset, tracked: Map[ShardKey, ShardPosition]): KinesisSourceOffset = {
    val listing = shards.listingVersion
    val createdAt = shards.streamsCreatedAt
    lastEnd.filter(_.holdsFor(start, tracked, listing, createdAt, availableNowSince, prefetcher.version))
      .map(_.end).getOrElse {
        val (version, advanced) = prefetcher.advanced(shards.readable(tracked), availableNowSince)
        val streamsCreatedAt = start.streamsCreatedAt ++ createdAt
        val end =
          if ((tracked eq start.shards) && advanced.isEmpty && streamsCreatedAt == start.streamsCreatedAt) start
          else {
            // The batch's tasks are decided here, from the blocks held now, and kept in its end offset.
            lastAvailable = Some(KinesisSourceOffset(tracked ++ advanced, streamsCreatedAt))
            val positions = tracked ++ batchLimits.fold(advanced)(limited(tracked, advanced, _))
            KinesisSourceOffset(positions, streamsCreatedAt,
              PartitionPlanner.coalesce(
                rangesBetween(start.shards, positions), options.buffer.coalesceThresholdBlockSize,
                options.buffer.coalesceBinSize))
          }
        lastEnd = Some(LastEnd(start, tracked, listing, createdAt, availableNowSince, version, end))
        end
      }
  }

  /** How far each shard of `advanced` moves within `limits`, from where `tracked` stands, block by block. */
  private def limited(tracked: Map[ShardKey, ShardPosition], advanced: Map[ShardKey, ShardPosition],
      limits: BatchLimits.Limits): Map[ShardKey, ShardPosition] = {
    val moved = ShardOrder.of(advanced).map(shard => (shard, tracked(shard), advanced(shard)))
    val steps = moved.iterator.zip(prefetcher.blocks(moved).iterator).map { case ((shard, _, _), blocks) =>
      shard -> blocks.map(b => BatchLimits.Step(b.to, b.records.toLong, b.bytes, b.firstArrivalMillis))
    }.toSeq
    BatchLimits.ends(steps, limits)
  }

  /**
   * Shows the shards the query follows in Spark's metrics system, from its first trigger on
   * (when the driver thread names the query); only a change of the shards changes the gauges.
   */
  private def publish(tracked: Map[ShardKey, ShardPosition]): Unit = {
    if (gauges.isEmpty) gauges = QueryMetrics.gauges(sparkContext, () => prefetcher.readFigures)
    gauges.filterNot(_ => tracked eq published).foreach { g =>
      g.follow(tracked.keySet)
      published = tracked
    }
  }

  /** Releases the blocks up to `end`, unless that was done last (releasing is per shard). */
  private def release(end: Map[ShardKey, ShardPosition]): Unit = if (!(end eq releasedUpTo)) {
    prefetcher.release(end)
    releasedUpTo = end
  }

  /**
   * Hands the prefetcher the shards to read, unless it has them from the last trigger: the
   * chains of the same shards only grew since (blocks are released only up to a start). So
   * too when `tracked` is the end the last trigger found from the shards it handed over: the
   * same shards, each at a position on its chain, where the batch that ended there released it.
   */
  private def follow(tracked: Map[ShardKey, ShardPosition]): Unit = {
    val listing = shards.listingVersion
    val handedOver = followed.exists { case (shardsBefore, listingBefore) =>
      listingBefore == listing &&
      ((shardsBefore eq tracked) || lastEnd.exists(last =>
        (last.tracked eq shardsBefore) && (last.end.shards eq tracked)))
    }
    if (!handedOver) prefetcher.track(tracked, shards.parents, shards.rangeChecks)
    followed = Some((tracked, listing))
  }

  override def planInputPartitions(start: Offset, end: Offset): Array[InputPartition] = {
    val until = end.asInstanceOf[KinesisSourceOffset]
    PartitionPlanner.plan(rangesBetween(start.asInstanceOf[KinesisSourceOffset].shards, until.shards),
      until.coalesced).toArray
  }

  /** The ranges a batch from `from` to `until` reads, in shard order, with the blocks now holding their records. */
  private def rangesBetween(
      from: Map[ShardKey, ShardPosition], until: Map[ShardKey, ShardPosition]): Vector[ShardRange] = {
    // In shard order, without sorting again while the shards stay the same (10,000: milliseconds).
    val moved = ShardOrder.of(until).flatMap { shard =>
      val to = until(shard)
      from.get(shard) match {
        case Some(since) if since == to => None
        case since => Some((shard, since.getOrElse(ShardPosition.TrimHorizon), to))
      }
    }
    val held = prefetcher.blocks(moved)
    val checks = shards.rangeChecks
    moved.iterator.zip(held.iterator).flatMap { case ((shard, since, to), blocks) =>
      ShardRange.between(shard, since, to, checks.get(shard),
        blocks.collect {
          case b if b.blockName.isDefined && b.records > 0 =>
            BlockRef(b.blockName.get, b.from, b.to, b.bytes, b.location.get)
        })
    }.toVector
  }

  override def createReaderFactory(): PartitionReaderFactory =
    new KinesisPartitionReaderFactory(options.connection, options.fetch, Some(rangesLost))

  override def deserializeOffset(json: String): Offset =
    lastOffset.filter(_.json() == json).getOrElse {
      val offset = CheckpointOffsets.read(json, options.streamNames, metadataPath)
      lastOffset = Some(offset)
      offset
    }

  override def commit(end: Offset): Unit = release(end.asInstanceOf[KinesisSourceOffset].shards)

  override def metrics(latestConsumedOffset: Optional[Offset]): java.util.Map[String, String] = {
    val prefetched = prefetcher.metrics
    // Losses the readers found, shards that expired before the query read them to their end, and
    // ranges of batches whose records expired before the batch read them (a batch re-run after a restart).
    val lost = prefetched.get("dataLossEvents").map(_.toLong).getOrElse(0L) + shards.dataLossEvents +
      rangesLost.value
    (prefetched + ("dataLossEvents" -> lost.toString) + ("idleWaitMs" -> lastIdleWaitMs.toString)).asJava
  }

  /** Stops prefetching (if it ever started), deregisters consumers if asked to, and lets go of the driver's clients. */
  override def stop(): Unit = if (stopped.compareAndSet(false, true)) {
    try {
      gauges.foreach(_.close())
      if (prefetcherMade) prefetcher.stop()
      consumers.foreach(_.stop())
    } finally KinesisClients.release(options.connection)
  }

  // Released once: a second stop would let go of clients another query still uses.
  private val stopped = new java.util.concurrent.atomic.AtomicBoolean(false)

  override def toString: String = name

  /**
   * Trigger.AvailableNow ends when a trigger finds no new data, so each trigger waits until
   * either new records are buffered or every shard has been read up to the start instant. With
   * new records, it also waits until `maxFetchDuration` has passed since the last batch's end
   * was set (or the buffer is full), so that a batch takes what that much prefetching buffers,
   * as the option says: a backlog otherwise ran in a batch per prefetch round, a few seconds
   * each, and every batch costs Spark the same whatever it holds (make bench, row `polling`).
   */
  private def awaitAvailableNow(tracked: Map[ShardKey, ShardPosition], since: Long): Unit = {
    def readable = shards.readable(tracked)
    def newData = prefetcher.advanced(readable, Some(since))._2.nonEmpty
    // Under a limit, a batch is full once the limit cut what is buffered: no use waiting for more.
    def batchFull = batchLimits.exists { limits =>
      val advanced = prefetcher.advanced(readable, Some(since))._2
      limited(tracked, advanced, limits) != advanced
    }
    def allRead = tracked.forall { case (shard, position) =>
      position.isInstanceOf[ShardPosition.ShardEnd] || prefetcher.fetchedUntil(shard, since)
    }
    val fullAt = availableNowBatchSetAt + options.fetch.maxFetchDurationMs * 1000000L
    var waiting = true
    while (waiting && prefetcher.isRunning) {
      // Counted before the checks, so that what a round brings after them ends the wait at once.
      val (rounds, blocks) = (prefetcher.completedRounds, prefetcher.appendedBlocks)
      val hasNew = newData
      val leftMs = (fullAt - System.nanoTime()) / 1000000L
      waiting = !allRead && (!hasNew || (leftMs > 0 && !prefetcher.bufferFull && !batchFull))
      if (waiting) {
        prefetcher.awaitRoundAfter(rounds,
          if (hasNew) leftMs else options.fetch.maxFetchDurationMs + KinesisMicroBatchStream.RoundGraceMs, blocks)
      }
    }
    availableNowBatchSetAt = System.nanoTime()
  }

}

/** The end a trigger found, and what it depends on; see [[KinesisMicroBatchStream.endFrom]]. */
private final case class LastEnd(start: KinesisSourceOffset, tracked: Map[ShardKey, ShardPosition], listing: Long,
    createdAt: Map[String, Long], availableNowSince: Option[Long], version: Long, end: KinesisSourceOffset) {
  def holdsFor(start: KinesisSourceOffset, tracked: Map[ShardKey, ShardPosition], listing: Long,
      createdAt: Map[String, Long], availableNowSince: Option[Long], version: Long): Boolean =
    (this.start eq start) && (this.tracked eq tracked) && this.listing == listing && (this.createdAt eq createdAt) &&
      this.availableNowSince == availableNowSince && this.version == version
}

/** The limits of one trigger: Spark's `ReadLimit` (all available: none, as Kafka's source) with the options'. */
private object BatchLimitsOf {
  def apply(limit: ReadLimit, options: KinesisSourceOptions): Option[BatchLimits.Limits] = {
    val rows = maxRows(limit)
    if (limit.isInstanceOf[ReadAllAvailable] || (rows.isEmpty && options.limits.isEmpty)) None
    else Some(BatchLimits.Limits(
        rows.orElse(options.limits.maxRecords).getOrElse(Long.MaxValue),
        options.limits.maxBytes.getOrElse(Long.MaxValue),
        options.limits.maxRecordsPerShard.getOrElse(Long.MaxValue)))
  }

  private def maxRows(limit: ReadLimit): Option[Long] = limit match {
    case rows: ReadMaxRows => Some(rows.maxRows())
    case composite: CompositeReadLimit =>
      composite.getReadLimits.toSeq.flatMap(l => maxRows(l)).reduceOption(_ min _)
    case _ => None
  }
}

object KinesisMicroBatchStream {
  /** Beyond `maxFetchDuration`, how long a trigger waits for a prefetch round (scheduling, store). */
  val RoundGraceMs = 60000L

  /**
   * How long a trigger that found nothing new waits for a block before it answers "nothing":
   * a block ends the wait at once, so it costs no latency; between waits Spark runs its trigger
   * loop (progress, status, the shard listing every `shardFetchInterval`). Each trigger in a row
   * that finds nothing waits twice as long, up to [[LongestIdleWaitMs]]. Only under the default
   * trigger (or Trigger.Once): Spark spaces the triggers of a processing-time trigger itself.
   */
  val IdleWaitMs = 250L

  /** An idle query's wait: it pays Spark's trigger loop once a second (make bench, row `idle`). */
  val LongestIdleWaitMs = 1000L
}
