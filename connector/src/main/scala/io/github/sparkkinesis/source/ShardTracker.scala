// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import org.apache.spark.internal.Logging

import io.github.sparkkinesis.client.{KinesisApi, ShardDescription}
import io.github.sparkkinesis.client.failures.RetryPolicy
import io.github.sparkkinesis.errors.{KinesisError, KinesisErrors}
import io.github.sparkkinesis.kpl.{HashKeyRange, RangeCheck}
import io.github.sparkkinesis.options.KinesisSourceOptions
import io.github.sparkkinesis.offsets.{KinesisSourceOffset, ShardKey, ShardPosition}
import io.github.sparkkinesis.time.{Clock, SystemClock}

/**
 * The driver's view of the streams' shards, shared by the micro-batch and the real-time
 * stream: lists them (at most every `shardFetchInterval`), follows resharding (ARCHITECTURE.md
 * invariant 2) and checks that a checkpoint belongs to the streams as they are now.
 */
final class ShardTracker(options: KinesisSourceOptions, kinesis: => KinesisApi, name: String,
    clock: Clock = SystemClock) extends Logging {
  private var shardDescriptions = Map.empty[ShardKey, ShardDescription]
  private var lineage = Map.empty[ShardKey, Seq[ShardKey]]
  private var listingChanges = 0L
  private var lastListingNanos = Long.MinValue
  // How long the last two listings took (none yet: zero). The shorter one spaces the listings:
  // one slow listing (the first, which opens the connection and fetches credentials, or a pause
  // of the host) says nothing of the stream and must not hold a reshard's children back.
  private var lastListingTook = 0L
  private var listingBeforeTook = 0L
  private var createdAt = Map.empty[String, Long]
  // Every shard's hash-key range and range check ever listed (they never change), also for a shard that expired since.
  private var ranges = Map.empty[ShardKey, HashKeyRange]
  private var checks = Map.empty[ShardKey, RangeCheck]
  private var expiredShards = 0L

  /** Tracked shards dropped unread to their end because Kinesis no longer listed them (see [[dropExpired]]). */
  def dataLossEvents: Long = expiredShards

  /** What the last listing said about each shard. */
  def descriptions: Map[ShardKey, ShardDescription] = shardDescriptions

  /**
   * How many listings so far found the shards other than the one before: what is derived from
   * the listing alone (lineage, readable shards) needs no recomputing while this stays.
   */
  def listingVersion: Long = listingChanges

  /** How the KPL user records of every shard listed so far are checked against its hash-key range. */
  def rangeChecks: Map[ShardKey, RangeCheck] = checks

  /** The creation time of each stream, as the first check found it. */
  def streamsCreatedAt: Map[String, Long] = createdAt

  /** A checkpoint must not continue on a stream that was deleted and created again. */
  def checkSameStreams(start: KinesisSourceOffset): Unit = if (createdAt.isEmpty) {
    createdAt = streamCreationTimes()
    start.streamsCreatedAt.foreach { case (stream, before) =>
      createdAt.get(stream).filter(_ != before).foreach { now =>
        throw KinesisErrors.streamRecreated(stream, before, now)
      }
    }
  }

  /**
   * When each stream was created. The source needs only ListShards, GetShardIterator and
   * GetRecords (as the Databricks connector documents); without kinesis:DescribeStreamSummary
   * the re-created-stream check is skipped, with a warning, rather than failing the query.
   */
  def streamCreationTimes(): Map[String, Long] =
    options.streamNames.flatMap { stream =>
      try Some(stream -> kinesis.streamCreatedAt(stream))
      catch {
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
   *
   * Kinesis adds shards only by closing others (a split, a merge, a new shard count), so new
   * shards are looked for every `shardFetchInterval` while a reshard is under way (a tracked
   * shard is read to its end, or `shardFetched` says one was fetched to it) and otherwise every
   * [[ShardTracker.QuietListingMs]] as a safety net: an idle query does not pay a listing a
   * second. No listing comes sooner than ten times the shorter of the last two listings' durations
   * (thousands of shards take seconds to list: triggers must not spend their time on it), unless `force`d.
   * A shard the listing no longer names is dropped as expired ([[dropExpired]]).
   */
  def trackNewShards(tracked: Map[ShardKey, ShardPosition], force: Boolean = false,
      shardFetched: Boolean = true): Map[ShardKey, ShardPosition] = {
    // Only a listing drops an ended shard from the offset, so one in `tracked` keeps the listing going.
    val reshardUnderWay = shardFetched || tracked.valuesIterator.exists(_.isInstanceOf[ShardPosition.ShardEnd])
    val everyMs =
      if (reshardUnderWay) options.shardFetchIntervalMs
      else math.max(options.shardFetchIntervalMs, ShardTracker.QuietListingMs)
    val interval =
      math.max(everyMs * 1000000L, ShardTracker.ListingShare * math.min(lastListingTook, listingBeforeTook))
    val due = force || lastListingNanos == Long.MinValue || clock.nanoTime() - lastListingNanos >= interval
    if (!due) return tracked
    val listed = listShards()
    val live = dropExpired(tracked, listed)
    val children = listed.toSeq.flatMap { case (key, d) => d.parents.map(p => ShardKey(key.stream, p) -> key) }
      .groupBy(_._1).map { case (parent, pairs) => parent -> pairs.map(_._2) }
    // Read before: every child is tracked, or (after later reshards dropped the children in
    // turn) some descendant is. Kinesis lists closed shards for the whole retention period.
    def descendants(key: ShardKey): Set[ShardKey] = {
      val direct = children.getOrElse(key, Nil).toSet
      direct ++ direct.flatMap(descendants)
    }
    val consumed = (key: ShardKey) =>
      children.get(key).exists(_.nonEmpty) &&
        (children(key).forall(c => tracked.contains(c)) || descendants(key).exists(tracked.contains))
    // Per listed shard, not as a difference of sets: sets of 10,000 shards cost milliseconds to diff.
    val added = listed.iterator.collect {
      case (key, d) if !tracked.contains(key) && !(d.closed && consumed(key)) => key
    }.toSet
    if (added.nonEmpty) logInfo(s"$name: new shards to read: ${added.toSeq.sorted.mkString(", ")}")
    val kept = live.filter { case (key, position) =>
      !position.isInstanceOf[ShardPosition.ShardEnd] || (listed.contains(key) && !consumed(key))
    }
    val next = kept ++ added.map(_ -> ShardPosition.TrimHorizon)
    // The same map when nothing changed, so that callers can tell so at once (`eq`).
    if (next == tracked) tracked else next
  }

  /**
   * `tracked` without the shards the listing no longer names although the query has not read
   * them to their end: Kinesis lists a closed shard only for the stream's retention period, so
   * such a shard closed that long ago (a query stopped across a reshard for longer than the
   * retention) and whatever the query had not read of it is gone. With `failOnDataLoss` that
   * fails the query (KINESIS_DATA_LOSS); otherwise it is logged and counted, and the shard is
   * dropped, so its children (no longer held back by it, invariant 2) are read.
   */
  private def dropExpired(tracked: Map[ShardKey, ShardPosition],
      listed: Map[ShardKey, ShardDescription]): Map[ShardKey, ShardPosition] = {
    val expired = tracked.iterator.filter { case (key, position) =>
      !listed.contains(key) && !position.isInstanceOf[ShardPosition.ShardEnd]
    }.toSeq.sortBy(_._1)
    // A stream always has an open shard: one that lists none of its shards is being deleted.
    expired.map(_._1.stream).distinct.find(stream => !listed.keysIterator.exists(_.stream == stream)).foreach {
      stream => throw KinesisErrors.streamNotFound(stream, options.connection.where, null)
    }
    expired.foreach { case (key, position) =>
      val children = listed.collect {
        case (child, d) if child.stream == key.stream && d.parents.contains(key.shardId) => child.shardId
      }
      val left = if (children.isEmpty) "not in this shard: Kinesis no longer lists it (it closed longer ago " +
        "than the retention period)"
      else s"in its child shards ${children.toSeq.sorted.mkString(", ")}: Kinesis no longer lists the shard " +
        "itself (it closed longer ago than the retention period)"
      val from = position match {
        case ShardPosition.AfterSequence(_, _) => s"after $position"
        case other => s"from $other"
      }
      if (options.fetch.failOnDataLoss) throw KinesisErrors.dataLoss(key.toString, from, left)
      logWarning(s"$name: records of shard $key $from may have been lost: the oldest record left is $left. " +
        "Going on with the shards listed (failOnDataLoss is false)")
    }
    expiredShards += expired.size
    tracked -- expired.map(_._1)
  }

  /**
   * The parents of every listed shard that has any, as the last listing names them (computed
   * once per listing: triggers must not redo per-shard work that only the listing changes).
   */
  def parents: Map[ShardKey, Seq[ShardKey]] = lineage

  /** Which of `tracked` may be read now (see [[ShardLineage]]). */
  def readable(tracked: Map[ShardKey, ShardPosition]): Map[ShardKey, ShardPosition] =
    ShardLineage.readable(tracked, lineage)

  def listShards(): Map[ShardKey, ShardDescription] = {
    val began = clock.nanoTime()
    val listed = options.streamNames.flatMap { stream =>
      RetryPolicy.ListShards.run(s"ListShards of stream '$stream'") {
        kinesis.listShards(stream, options.maxShardsPerDescribe)
      }.map(d => ShardKey(stream, d.shardId) -> d)
    }.toMap
    if (listed != shardDescriptions) {
      shardDescriptions = listed
      lineage = ShardLineage.parents(listed)
      listingChanges += 1
    }
    // A shard's range never changes: only shards new to this listing need theirs. Their parents'
    // ranges come from the whole listing (a parent Kinesis no longer lists has them from its
    // children, see RangeChecks.ranges); a range listed before wins over one derived.
    val added = listed.filter { case (key, _) => !checks.contains(key) }
    if (added.nonEmpty) {
      ranges = RangeChecks.ranges(listed) ++ ranges
      checks ++= RangeChecks.of(added, ranges, options.outOfRangeUserRecords)
    }
    lastListingNanos = clock.nanoTime()
    listingBeforeTook = lastListingTook
    lastListingTook = lastListingNanos - began
    listed
  }
}

object ShardTracker {
  /** A listing is due no sooner than this many times the shorter of the last two listings' durations. */
  val ListingShare = 10L

  /**
   * How often shards are listed while no followed shard has closed: only to find what reading
   * did not show (a stream deleted, a shard expired), so rarely.
   */
  val QuietListingMs = 60000L
}
