package io.github.sparkkinesis.source

import java.util.Optional

import scala.jdk.CollectionConverters._

import org.apache.spark.SparkContext
import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReaderFactory}
import org.apache.spark.sql.connector.read.streaming._

import io.github.sparkkinesis.client.{KinesisApi, KinesisClients, RetryPolicy, ShardDescription}
import io.github.sparkkinesis.efo.ConsumerRegistry
import io.github.sparkkinesis.errors.{KinesisError, KinesisErrors}
import io.github.sparkkinesis.kpl.HashKeyRange
import io.github.sparkkinesis.options.{EfoSettings, KinesisSourceOptions}
import io.github.sparkkinesis.offsets.{KinesisSourceOffset, ShardKey, ShardPosition}
import io.github.sparkkinesis.prefetch.{PrefetchSettings, Prefetcher}

/**
 * The polling (GetRecords) micro-batch stream. A [[Prefetcher]] keeps reading ahead into
 * executor memory; each trigger lists shards (at most every `shardFetchInterval`), ends the
 * batch where the buffered data ends, and plans tasks that read the buffered blocks where
 * they live. Offsets name exact sequence numbers, so a batch re-run after a failure reads the
 * same records, from the blocks or, where they are gone, from Kinesis again.
 */
final class KinesisMicroBatchStream(
    options: KinesisSourceOptions,
    metadataPath: String,
    api: => KinesisApi,
    sparkContext: => SparkContext)
  extends MicroBatchStream with SupportsTriggerAvailableNow with ReportsSourceMetrics with Logging {

  def this(options: KinesisSourceOptions, metadataPath: String) =
    this(options, metadataPath, KinesisClients.api(options.connection), SparkSession.active.sparkContext)

  private val name = s"KinesisV2[${options.streamNames.mkString(",")}]"
  // The driver's clients for this connection stay open until the last query using them stops.
  KinesisClients.acquire(options.connection)
  private lazy val kinesis = api
  private lazy val prefetcher = new Prefetcher(sparkContext, options.connection,
    PrefetchSettings(options.fetch, options.buffer.shardsPerTask, options.buffer.fetchBufferSize), name)

  private var shardDescriptions = Map.empty[ShardKey, ShardDescription]
  // Every shard's hash-key range ever listed (they never change), also for a shard that expired since.
  private var hashRanges = Map.empty[ShardKey, HashKeyRange]
  private var lastListingNanos = Long.MinValue
  private var streamsCreatedAt = Map.empty[String, Long]
  private var availableNowSince: Option[Long] = None
  private var started = false
  private var consumers = Map.empty[String, String] // stream -> consumer name (EFO)
  private var consumersCheckedNanos = Long.MinValue

  override def initialOffset(): Offset = {
    val store = new InitialOffsetStore(metadataPath, sparkContext.hadoopConfiguration)
    store.getOrCreate {
      val listed = listShards().keySet
      // Offsets may name other streams' shards (initialPosition as offset JSON): only ours count.
      val offset = KinesisSourceOffset(
        StartPositions.of(options.initialPosition, listed, System.currentTimeMillis()), streamCreationTimes())
      logInfo(s"Initial offset of $name: ${offset.json()}")
      offset
    }
  }

  override def getDefaultReadLimit: ReadLimit = ReadLimit.allAvailable()

  override def latestOffset(): Offset =
    throw new UnsupportedOperationException("latestOffset(Offset, ReadLimit) must be used instead")

  override def prepareForTriggerAvailableNow(): Unit = {
    val now = System.currentTimeMillis()
    availableNowSince = Some(now)
    prefetcher.readUntilArrival(now)
    logInfo(s"$name: Trigger.AvailableNow reads the records that arrived before $now")
  }

  override def latestOffset(start: Offset, limit: ReadLimit): Offset = {
    val startOffset = start.asInstanceOf[KinesisSourceOffset]
    checkSameStreams(startOffset)
    // Spark commits a batch's end only once the next batch runs: blocks up to `start` are no
    // longer needed now. Kept until then, a full fetchBufferSize would stop prefetching for good.
    prefetcher.release(startOffset.shards)
    val tracked = trackNewShards(startOffset.shards)
    prefetcher.track(tracked, parentsOf(tracked.keySet), hashRanges)
    options.efo.foreach(registerConsumers)
    prefetcher.start()
    if (!started) {
      // The first trigger waits for one round, so Trigger.Once and restarts find data at once.
      prefetcher.awaitRoundAfter(0, options.fetch.maxFetchDurationMs + KinesisMicroBatchStream.RoundGraceMs)
      started = true
    }
    availableNowSince.foreach(since => awaitAvailableNow(tracked, since))
    prefetcher.checkHealthy()
    val readable = ShardLineage.readable(tracked, shardDescriptions)
    val ends = readable.map { case (shard, from) => shard -> prefetcher.reachable(shard, from, availableNowSince) }
    KinesisSourceOffset(tracked ++ ends, startOffset.streamsCreatedAt ++ streamsCreatedAt)
  }

  override def planInputPartitions(start: Offset, end: Offset): Array[InputPartition] = {
    val from = start.asInstanceOf[KinesisSourceOffset].shards
    val ranges = end.asInstanceOf[KinesisSourceOffset].shards.toSeq.sortBy(_._1).flatMap { case (shard, until) =>
      val since = from.getOrElse(shard, ShardPosition.TrimHorizon)
      ShardRange.between(shard, since, until, hashRanges.get(shard), prefetcher.blocks(shard, since, until).collect {
        case b if b.blockName.isDefined && b.records > 0 => BlockRef(b.blockName.get, b.from, b.to, b.bytes, b.location.get)
      })
    }
    PartitionPlanner.plan(ranges, options.buffer.coalesceThresholdBlockSize, options.buffer.coalesceBinSize).toArray
  }

  override def createReaderFactory(): PartitionReaderFactory =
    new KinesisPartitionReaderFactory(options.connection, options.fetch)

  override def deserializeOffset(json: String): Offset = CheckpointOffsets.read(json, options.streamNames, metadataPath)

  override def commit(end: Offset): Unit = prefetcher.release(end.asInstanceOf[KinesisSourceOffset].shards)

  override def metrics(latestConsumedOffset: Optional[Offset]): java.util.Map[String, String] =
    prefetcher.metrics.asJava

  override def stop(): Unit = {
    prefetcher.stop()
    for (efo <- options.efo if efo.requireDeregistration; (stream, consumer) <- consumers) {
      ConsumerRegistry(options.connection).deregisterQuietly(stream, consumer)
    }
    KinesisClients.release(options.connection)
  }

  override def toString: String = name

  /**
   * Trigger.AvailableNow ends when a trigger finds no new data, so each trigger waits until
   * either new records are buffered or every shard has been read up to the start instant.
   */
  private def awaitAvailableNow(tracked: Map[ShardKey, ShardPosition], since: Long): Unit = {
    def readable = ShardLineage.readable(tracked, shardDescriptions)
    def newData = readable.exists { case (shard, from) => prefetcher.reachable(shard, from, Some(since)) != from }
    def allRead = tracked.forall { case (shard, position) =>
      position.isInstanceOf[ShardPosition.ShardEnd] || prefetcher.fetchedUntil(shard, since)
    }
    while (!newData && !allRead && prefetcher.isRunning) {
      prefetcher.awaitRoundAfter(prefetcher.completedRounds, options.fetch.maxFetchDurationMs + KinesisMicroBatchStream.RoundGraceMs)
    }
  }

  /**
   * Enhanced fan-out: the consumer of each stream is reused when registered under its name,
   * else registered and awaited until ACTIVE; checked again every `consumerRefreshInterval`,
   * so a consumer deregistered behind the query's back is registered again.
   */
  private def registerConsumers(efo: EfoSettings): Unit = {
    val due = consumersCheckedNanos == Long.MinValue ||
      System.nanoTime() - consumersCheckedNanos >= efo.refreshIntervalMs * 1000000L
    if (due) {
      lazy val queryId = Option(sparkContext.getLocalProperty("sql.streaming.queryId"))
        .getOrElse(java.util.UUID.randomUUID().toString)
      val registry = ConsumerRegistry(options.connection)
      if (consumers.isEmpty) consumers = options.streamNames.map(s => s -> efo.consumerName(s, queryId)).toMap
      val arns = consumers.map { case (stream, consumer) => stream -> registry.resolve(stream, consumer) }
      if (consumersCheckedNanos == Long.MinValue) logInfo(s"$name reads through enhanced fan-out consumers $arns")
      prefetcher.useConsumers(arns)
      consumersCheckedNanos = System.nanoTime()
    }
  }

  /** A checkpoint must not continue on a stream that was deleted and created again. */
  private def checkSameStreams(start: KinesisSourceOffset): Unit = if (streamsCreatedAt.isEmpty) {
    streamsCreatedAt = streamCreationTimes()
    start.streamsCreatedAt.foreach { case (stream, before) =>
      streamsCreatedAt.get(stream).filter(_ != before).foreach { now =>
        throw KinesisErrors.streamRecreated(stream, before, now)
      }
    }
  }

  /**
   * When each stream was created. The source needs only ListShards, GetShardIterator and
   * GetRecords (as the Databricks connector documents); without kinesis:DescribeStreamSummary
   * the re-created-stream check is skipped, with a warning, rather than failing the query.
   */
  private def streamCreationTimes(): Map[String, Long] =
    options.streamNames.flatMap { stream =>
      try Some(stream -> kinesis.streamCreatedAt(stream)) catch {
        case e: KinesisError if e.getCondition == "KINESIS_ACCESS_DENIED" =>
          logWarning(s"$name cannot check whether stream '$stream' was deleted and created again " +
            "since the checkpoint was written: it lacks the permission kinesis:DescribeStreamSummary")
          None
      }
    }.toMap

  /**
   * Adds shards that appeared since `tracked` (children of a reshard, or an increased shard
   * count), to be read from their beginning. A closed shard that was read to its end in an
   * earlier batch leaves the offset once all its children are tracked (or once Kinesis no
   * longer lists it), and is not taken for a new shard while Kinesis still lists it.
   */
  private def trackNewShards(tracked: Map[ShardKey, ShardPosition]): Map[ShardKey, ShardPosition] = {
    val due = lastListingNanos == Long.MinValue ||
      System.nanoTime() - lastListingNanos >= options.shardFetchIntervalMs * 1000000L
    if (!due) return tracked
    val listed = listShards()
    val children = listed.toSeq.flatMap { case (key, d) => d.parents.map(p => ShardKey(key.stream, p) -> key) }
      .groupBy(_._1).map { case (parent, pairs) => parent -> pairs.map(_._2) }
    // Read before: every child is tracked, or (after later reshards dropped the children in
    // turn) some descendant is. Kinesis lists closed shards for the whole retention period.
    def descendants(key: ShardKey): Set[ShardKey] = {
      val direct = children.getOrElse(key, Nil).toSet
      direct ++ direct.flatMap(descendants)
    }
    val consumed = (key: ShardKey) => children.get(key).exists(_.nonEmpty) &&
      (children(key).forall(c => tracked.contains(c)) || descendants(key).exists(tracked.contains))
    val added = listed.keySet.diff(tracked.keySet).filterNot(key => listed(key).closed && consumed(key))
    if (added.nonEmpty) logInfo(s"$name: new shards to read: ${added.toSeq.sorted.mkString(", ")}")
    val kept = tracked.filter { case (key, position) =>
      !position.isInstanceOf[ShardPosition.ShardEnd] || (listed.contains(key) && !consumed(key))
    }
    kept ++ added.map(_ -> ShardPosition.TrimHorizon)
  }

  private def parentsOf(shards: Set[ShardKey]): Map[ShardKey, Seq[ShardKey]] =
    shards.map(key => key -> shardDescriptions.get(key).toSeq.flatMap(_.parents).map(ShardKey(key.stream, _))).toMap

  private def listShards(): Map[ShardKey, ShardDescription] = {
    val listed = options.streamNames.flatMap { stream =>
      RetryPolicy.ListShards.run(s"ListShards of stream '$stream'") {
        kinesis.listShards(stream, options.maxShardsPerDescribe)
      }.map(d => ShardKey(stream, d.shardId) -> d)
    }.toMap
    shardDescriptions = listed
    hashRanges ++= listed.flatMap { case (key, d) => d.hashKeyRange.map(key -> _) }
    lastListingNanos = System.nanoTime()
    listed
  }
}

object KinesisMicroBatchStream {
  /** Beyond `maxFetchDuration`, how long a trigger waits for a prefetch round (scheduling, store). */
  val RoundGraceMs = 60000L
}
