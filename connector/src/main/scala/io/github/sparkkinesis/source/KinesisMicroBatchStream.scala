package io.github.sparkkinesis.source

import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReaderFactory}
import org.apache.spark.sql.connector.read.streaming.{MicroBatchStream, Offset, ReadLimit, SupportsAdmissionControl}

import io.github.sparkkinesis.client.{KinesisApi, KinesisClients, ShardDescription}
import io.github.sparkkinesis.options.{InitialPosition, KinesisSourceOptions}
import io.github.sparkkinesis.offsets.{KinesisOffsetJson, KinesisSourceOffset, ShardKey, ShardPosition}
import io.github.sparkkinesis.polling.LatestOffsetProbe

/**
 * The polling (GetRecords) micro-batch stream. Each trigger lists shards (at most every
 * `shardFetchInterval`), finds how far each readable shard goes now, and plans one partition
 * per shard with new records. Offsets name exact sequence numbers, so a batch re-run after a
 * failure reads the same records.
 */
final class KinesisMicroBatchStream(
    options: KinesisSourceOptions,
    metadataPath: String,
    api: => KinesisApi)
  extends MicroBatchStream with SupportsAdmissionControl with Logging {

  def this(options: KinesisSourceOptions, metadataPath: String) =
    this(options, metadataPath, KinesisClients.api(options.connection))

  private lazy val kinesis = api
  private lazy val probe = new LatestOffsetProbe(kinesis, options.fetch)

  private var shardDescriptions = Map.empty[ShardKey, ShardDescription]
  private var lastListingNanos = Long.MinValue

  override def initialOffset(): Offset = {
    val store = new InitialOffsetStore(metadataPath, SparkSession.active.sparkContext.hadoopConfiguration)
    store.getOrCreate {
      val start = options.initialPosition match {
        case InitialPosition.TrimHorizon => ShardPosition.TrimHorizon
        case InitialPosition.AtTimestamp(ms) => ShardPosition.AtTimestamp(ms)
        // "latest" becomes the moment the query first starts, which stays concrete on replay.
        case InitialPosition.Latest => ShardPosition.AtTimestamp(System.currentTimeMillis())
      }
      val offset = KinesisSourceOffset(listShards().keys.map(_ -> start).toMap)
      logInfo(s"Initial offset of ${options.streamNames.mkString(",")}: ${offset.json()}")
      offset
    }
  }

  override def getDefaultReadLimit: ReadLimit = ReadLimit.allAvailable()

  override def latestOffset(): Offset =
    throw new UnsupportedOperationException("latestOffset(Offset, ReadLimit) must be used instead")

  override def latestOffset(start: Offset, limit: ReadLimit): Offset = {
    val startOffset = start.asInstanceOf[KinesisSourceOffset]
    val tracked = trackNewShards(startOffset.shards)
    val advanced = probe.advance(ShardLineage.readable(tracked, shardDescriptions))
    KinesisSourceOffset(tracked ++ advanced)
  }

  override def planInputPartitions(start: Offset, end: Offset): Array[InputPartition] = {
    val from = start.asInstanceOf[KinesisSourceOffset].shards
    end.asInstanceOf[KinesisSourceOffset].shards.toSeq.sortBy(_._1).flatMap { case (shard, until) =>
      val since = from.getOrElse(shard, ShardPosition.TrimHorizon)
      until.lastSequence.filterNot(seq => since.lastSequence.contains(seq))
        .map(endSeq => KinesisInputPartition(shard, since, endSeq))
    }.toArray
  }

  override def createReaderFactory(): PartitionReaderFactory =
    new KinesisPartitionReaderFactory(options.connection, options.fetch)

  override def deserializeOffset(json: String): Offset = KinesisOffsetJson.read(json)

  override def commit(end: Offset): Unit = ()

  override def stop(): Unit = probe.close()

  override def toString: String = s"KinesisV2[${options.streamNames.mkString(",")}]"

  /**
   * Adds shards that appeared since `tracked` (children of a reshard, or an increased shard
   * count), to be read from their beginning, and forgets ended shards Kinesis no longer lists.
   */
  private def trackNewShards(tracked: Map[ShardKey, ShardPosition]): Map[ShardKey, ShardPosition] = {
    val due = lastListingNanos == Long.MinValue ||
      System.nanoTime() - lastListingNanos >= options.shardFetchIntervalMs * 1000000L
    if (!due) return tracked
    val listed = listShards()
    val added = listed.keySet.diff(tracked.keySet)
    if (added.nonEmpty) logInfo(s"New shards to read: ${added.toSeq.sorted.mkString(", ")}")
    val kept = tracked.filter { case (key, position) =>
      listed.contains(key) || !position.isInstanceOf[ShardPosition.ShardEnd]
    }
    kept ++ added.map(_ -> ShardPosition.TrimHorizon)
  }

  private def listShards(): Map[ShardKey, ShardDescription] = {
    val listed = options.streamNames.flatMap { stream =>
      kinesis.listShards(stream, options.maxShardsPerDescribe).map(d => ShardKey(stream, d.shardId) -> d)
    }.toMap
    shardDescriptions = listed
    lastListingNanos = System.nanoTime()
    listed
  }
}
