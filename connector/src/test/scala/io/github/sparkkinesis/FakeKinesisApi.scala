// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis

import java.nio.charset.StandardCharsets
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicInteger

import scala.collection.mutable

import io.github.sparkkinesis.client._
import io.github.sparkkinesis.errors.KinesisErrors
import io.github.sparkkinesis.kpl.RangeCheck
import io.github.sparkkinesis.offsets.ShardPosition
import io.github.sparkkinesis.time.Clock

/**
 * An in-memory Kinesis behind [[KinesisApi]], so unit tests need no network.
 *
 * Sequence numbers are decimal strings as long as real ones, shared by all shards of a stream
 * and increasing with every record put (`base + n * 1000`). The base is just under 10^55, so
 * the fifth record of a stream has one digit more than the fourth: code that compared
 * sequence numbers as strings would get their order wrong.
 *
 * Shard iterators are strings that remember stream, shard and record index, as real iterators
 * remember a position. Faults are injected with [[throttleNextGetRecords]],
 * [[expireNextIterator]], [[trim]] (retention) and [[reportZeroMillisBehind]].
 */
final class FakeKinesisApi extends KinesisApi {
  import FakeKinesisApi._

  private final class Shard(
      val id: String,
      val parent: Option[String],
      val adjacentParent: Option[String]) {
    val records = mutable.ArrayBuffer.empty[KinesisRecord]
    var closed = false
    var trimmedBefore = 0
  }

  private final class Stream {
    val shards = mutable.LinkedHashMap.empty[String, Shard]
    var putCount = 0
    def nextShardId(): String = f"shardId-${shards.size}%012d"
  }

  private val streams = mutable.Map.empty[String, Stream]
  private val calls = new ConcurrentHashMap[String, AtomicInteger]()
  private var throttledCalls = 0
  private var throttledListings = 0
  private var expireOnce = false
  private var expireAlways = false
  private var emptyPagesBehind = 0
  private val emptyPagesOfShard = scala.collection.mutable.Map.empty[String, Int]
  private var alwaysZeroBehind = false
  private var arrivalMillis = 1593105825000L // 2020-06-25T17:23:45Z
  private var wallClockArrival = false

  /** Records arrive at the real current time (for tests of time-based reads). */
  def arriveAtWallClock(): this.type = synchronized { wallClockArrival = true; this }

  // ---- setting up the fake ----

  /** Creates a stream of `shardCount` open shards named shardId-000000000000 and onwards. */
  def createStream(name: String, shardCount: Int): this.type = synchronized {
    val stream = new Stream
    (0 until shardCount).foreach { _ =>
      val id = stream.nextShardId()
      stream.shards(id) = new Shard(id, None, None)
    }
    streams(name) = stream
    this
  }

  /** Appends records with these payloads to one shard; returns their sequence numbers. */
  def put(stream: String, shardId: String, payloads: String*): Seq[String] = synchronized {
    payloads.map(payload => putRecord(stream, shardId, s"key-$payload", payload.getBytes(StandardCharsets.UTF_8)))
  }

  /** Appends one Kinesis record with this partition key and data (a KPL aggregate, say); returns its sequence number. */
  def putRecord(stream: String, shardId: String, partitionKey: String, data: Array[Byte]): String = synchronized {
    val s = streams(stream)
    val shard = s.shards(shardId)
    require(!shard.closed, s"shard $shardId is closed")
    val seq = (SequenceBase + BigInt(s.putCount) * 1000).toString
    s.putCount += 1
    arrivalMillis = if (wallClockArrival) System.currentTimeMillis() else arrivalMillis + 1000
    shard.records += KinesisRecord(partitionKey, data, seq, arrivalMillis)
    seq
  }

  /** Appends `count` records named `prefix-0`, `prefix-1`, ...; returns their sequence numbers. */
  def putMany(stream: String, shardId: String, prefix: String, count: Int): Seq[String] =
    put(stream, shardId, (0 until count).map(i => s"$prefix-$i"): _*)

  /** Splits a shard: it is closed and two open children take its place. Returns the children. */
  def split(stream: String, shardId: String): (String, String) = synchronized {
    val s = streams(stream)
    s.shards(shardId).closed = true
    val a = s.nextShardId()
    s.shards(a) = new Shard(a, Some(shardId), None)
    val b = s.nextShardId()
    s.shards(b) = new Shard(b, Some(shardId), None)
    (a, b)
  }

  /** Merges two shards: both are closed and one open child takes their place. */
  def merge(stream: String, shardId: String, adjacentShardId: String): String = synchronized {
    val s = streams(stream)
    s.shards(shardId).closed = true
    s.shards(adjacentShardId).closed = true
    val child = s.nextShardId()
    s.shards(child) = new Shard(child, Some(shardId), Some(adjacentShardId))
    child
  }

  /** Retention: records with an index below `index` are gone from the shard. */
  def trim(stream: String, shardId: String, index: Int): Unit = synchronized {
    streams(stream).shards(shardId).trimmedBefore = index
  }

  /** Every record of a shard, trimmed or not, in order. */
  def records(stream: String, shardId: String): Seq[KinesisRecord] = synchronized {
    streams(stream).shards(shardId).records.toSeq
  }

  /** The next `n` GetRecords calls fail with [[ThrottledException]]. */
  def throttleNextGetRecords(n: Int): Unit = synchronized { throttledCalls = n }

  /** The next `n` ListShards calls fail with [[ThrottledException]]. */
  def throttleNextListShards(n: Int): Unit = synchronized { throttledListings = n }

  /** The next GetRecords call fails with [[IteratorExpiredException]]. */
  def expireNextIterator(): Unit = synchronized { expireOnce = true }

  /** Reports MillisBehindLatest 0 even behind the tip, as local Kinesis implementations may. */
  /** Every GetRecords fails with an expired iterator, as under a badly skewed clock. */
  def expireEveryIterator(): Unit = synchronized { expireAlways = true }

  /** The next `n` GetRecords return no records although the shard has more (as on sparse shards). */
  def emptyPagesBehindTip(n: Int): Unit = synchronized { emptyPagesBehind = n }

  /** The next `n` GetRecords on `shardId` return no records although it has more (a shard slow to answer). */
  def emptyPagesOn(shardId: String, n: Int): Unit = synchronized { emptyPagesOfShard(shardId) = n }

  def reportZeroMillisBehind(): Unit = synchronized { alwaysZeroBehind = true }

  /** How many times an operation (ListShards, GetShardIterator, GetRecords) was called. */
  def callCount(operation: String): Int = Option(calls.get(operation)).map(_.get).getOrElse(0)

  def resetCallCounts(): Unit = calls.clear()

  // ---- KinesisApi ----

  override def streamCreatedAt(stream: String): Long = synchronized {
    streams.getOrElse(stream, throw KinesisErrors.streamNotFound(stream, "fake", null))
    streamCreation.getOrElse(stream, 1593105825000L)
  }

  /** Makes the stream look deleted and created again (a new creation time). */
  def recreate(stream: String, createdAtMillis: Long): Unit = synchronized { streamCreation(stream) = createdAtMillis }

  private val streamCreation = scala.collection.mutable.Map.empty[String, Long]

  @volatile private var nextListingMillis = 0L

  /** The next ListShards takes this long, as one that opens the connection may. */
  def slowNextListing(millis: Long): this.type = { nextListingMillis = millis; this }

  override def listShards(stream: String, pageSize: Int): Seq[ShardDescription] = {
    val slow = nextListingMillis
    nextListingMillis = 0
    Thread.sleep(slow) // outside the lock: other calls go on meanwhile
    describe(stream)
  }

  private def describe(stream: String): Seq[ShardDescription] = synchronized {
    count("ListShards")
    if (throttledListings > 0) {
      throttledListings -= 1
      throw new ThrottledException("Rate exceeded for stream (fake)", null)
    }
    val s = streams.getOrElse(stream, throw new IllegalArgumentException(s"no stream $stream"))
    s.shards.values.map(sh => ShardDescription(sh.id, sh.parent, sh.adjacentParent, sh.closed)).toSeq
  }

  /** GetShardIterator refused as by a policy that lacks kinesis:GetShardIterator. */
  def denyShardIterators(): this.type = synchronized { shardIteratorsDenied = true; this }
  private var shardIteratorsDenied = false

  override def shardIterator(stream: String, shardId: String, position: ShardPosition): String =
    synchronized {
      count("GetShardIterator")
      if (shardIteratorsDenied) {
        throw KinesisErrors.accessDenied("Kinesis", "GetShardIterator", s"stream '$stream'", "test",
          "kinesis:GetShardIterator", "test keys", "not authorized", null)
      }
      val shard = streams(stream).shards(shardId)
      val index = position match {
        case ShardPosition.TrimHorizon => shard.trimmedBefore
        case ShardPosition.AtTimestamp(ms) =>
          val i = shard.records.indexWhere(_.approximateArrivalMillis >= ms)
          if (i < 0) shard.records.size else i
        case ShardPosition.AfterSequence(seq, sub) =>
          val i = shard.records.indexWhere(_.sequenceNumber == seq)
          require(i >= 0, s"sequence number $seq is not in shard $shardId")
          if (sub.isDefined) i else i + 1 // inside an aggregate: the reader asks for it again
        case ShardPosition.AtSequence(seq) =>
          val i = shard.records.indexWhere(_.sequenceNumber == seq)
          require(i >= 0, s"sequence number $seq is not in shard $shardId")
          i
        case end: ShardPosition.ShardEnd =>
          throw new IllegalArgumentException(s"no iterator exists past the end of a closed shard ($end)")
      }
      // As in Kinesis, a position that has passed the retention period starts at the trim horizon.
      encode(stream, shardId, math.max(index, shard.trimmedBefore))
    }

  override def getRecords(stream: String, iterator: String, limit: Int, rangeCheck: Option[RangeCheck]): RecordBatch =
    synchronized {
      count("GetRecords")
      require(limit >= 1 && limit <= 10000, s"limit $limit is out of range")
      if (throttledCalls > 0) {
        throttledCalls -= 1
        throw new ThrottledException("Rate exceeded for shard (fake)", null)
      }
      if (expireOnce || expireAlways) {
        expireOnce = false
        throw new IteratorExpiredException("Iterator expired (fake)", null)
      }
      val (iteratorStream, shardId, from) = decode(iterator)
      require(iteratorStream == stream, s"an iterator of stream $iteratorStream was read as one of stream $stream")
      val shard = streams(stream).shards(shardId)
      if (emptyPagesBehind > 0 && from < shard.records.size) {
        emptyPagesBehind -= 1
        return RecordBatch(Seq.empty, Some(iterator), 60000L)
      }
      if (emptyPagesOfShard.getOrElse(shardId, 0) > 0 && from < shard.records.size) {
        emptyPagesOfShard(shardId) -= 1
        return RecordBatch(Seq.empty, Some(iterator), 60000L)
      }
      val start = math.max(from, shard.trimmedBefore)
      val until = math.min(start + limit, shard.records.size)
      val batch = shard.records.slice(start, until).toSeq
      val atTip = until == shard.records.size
      val next = if (atTip && shard.closed) None else Some(encode(stream, shardId, until))
      val behind = if (atTip || alwaysZeroBehind) 0L
      else (shard.records.last.approximateArrivalMillis -
        shard.records(until - 1).approximateArrivalMillis).max(1L)
      // Split aggregates as the SDK adapter does.
      val (records, kpl) = UserRecords.expand(
        batch.map(r => UserRecords.Raw(r.partitionKey, r.data, r.sequenceNumber, r.approximateArrivalMillis)),
        rangeCheck)
      RecordBatch(records, next, behind, kpl)
    }

  private def count(operation: String): Unit =
    calls.computeIfAbsent(operation, _ => new AtomicInteger()).incrementAndGet()
}

object FakeKinesisApi {
  /** Just under 10^55: the fifth record of a stream has one digit more than the first four. */
  val SequenceBase: BigInt = BigInt(10).pow(55) - 3500

  private def encode(stream: String, shardId: String, index: Int): String =
    s"fake-iterator|$stream|$shardId|$index"

  private def decode(iterator: String): (String, String, Int) = iterator.split('|') match {
    case Array("fake-iterator", stream, shard, index) => (stream, shard, index.toInt)
    case _ => throw new IllegalArgumentException(s"not an iterator of the fake: $iterator")
  }

  def text(record: KinesisRecord): String = new String(record.data, StandardCharsets.UTF_8)
}

/** A clock whose sleeps return at once and move time forward; it adds up the time slept. */
final class FakeClock(startNanos: Long = 1000000000000L) extends Clock {
  private var now = startNanos
  private var slept = 0L

  override def nanoTime(): Long = synchronized(now)

  override def sleepNanos(nanos: Long): Unit = synchronized {
    if (nanos > 0) {
      now += nanos
      slept += nanos
    }
  }

  def advanceMillis(ms: Long): Unit = synchronized { now += ms * 1000000L }

  def totalSleptMillis: Long = synchronized(slept / 1000000L)

  def nowMillis: Long = synchronized(now / 1000000L)
}
