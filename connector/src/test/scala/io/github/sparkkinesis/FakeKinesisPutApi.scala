// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis

import java.nio.charset.StandardCharsets
import java.util.concurrent.CountDownLatch
import java.util.concurrent.atomic.AtomicInteger

import scala.collection.mutable

import io.github.sparkkinesis.client.{KinesisPutApi, PutEntry, PutFailure, PutResult, PutStored, ShardDescription}
import io.github.sparkkinesis.kpl.{Deaggregator, HashKeyRange, OutOfRangePolicy, RangeCheck, UserRecord}

/**
 * An in-memory PutRecords behind [[KinesisPutApi]]. It stores what it accepts per stream, in
 * arrival order, on the shard whose hash-key range holds the entry's hash key (as Kinesis
 * routes), and refuses entries as a test scripts it with [[refuse]]: the way Kinesis refuses
 * some entries of a call when a shard is over its limits. It checks the Kinesis limits of a
 * call itself, so a test fails if the sink ever sends more than Kinesis takes. A stream has
 * one shard unless a test gives it more ([[shards]]) or splits one ([[split]]).
 */
final class FakeKinesisPutApi extends KinesisPutApi {
  import FakeKinesisPutApi._

  /** One call as sent: the stream, how many entries, how many bytes (data + partition keys), their keys. */
  final case class Call(stream: String, records: Int, bytes: Long, keys: Seq[String])

  private final case class Shard(id: String, range: HashKeyRange, var closed: Boolean = false)

  private val stored = mutable.Map.empty[String, mutable.ArrayBuffer[(String, PutEntry)]]
  private val shardsOf = mutable.Map.empty[String, mutable.ArrayBuffer[Shard]]
  private val sent = mutable.ArrayBuffer.empty[Call]
  private var refusal: (Int, PutEntry) => Option[String] = (_, _) => None
  private var failure: Option[RuntimeException] = None
  private var listings = 0
  private val recordLimits = mutable.Map.empty[String, Long]
  private var describes = 0
  private val active = new AtomicInteger()
  private val mostActive = new AtomicInteger()
  @volatile private var gate: Option[CountDownLatch] = None

  /**
   * From now on, `decide(callNumber, entry)` says whether an entry is refused, and with which
   * error code; call numbers count from 1 over the fake's life.
   */
  def refuse(decide: (Int, PutEntry) => Option[String]): this.type = synchronized {
    refusal = decide
    this
  }

  /** Every call from now on throws this (a stream that does not exist, a denied access). */
  def failEveryCall(e: RuntimeException): Unit = synchronized { failure = Some(e) }

  /** Calls wait until [[open]] is called: a slow Kinesis, to see how many calls are in flight. */
  def holdCalls(): Unit = gate = Some(new CountDownLatch(1))

  def open(): Unit = gate.foreach(_.countDown())

  /** `stream` gets `count` open shards splitting the hash keys evenly, as CreateStream makes them. */
  def shards(stream: String, count: Int): this.type = synchronized {
    val step = (HashKeyRange.MaxHashKey + 1) / count
    shardsOf(stream) = mutable.ArrayBuffer.tabulate(count) { i =>
      val end = if (i == count - 1) HashKeyRange.MaxHashKey else step * (i + 1) - 1
      Shard(shardId(i), HashKeyRange(step * i, end))
    }
    this
  }

  /** Splits an open shard in two at the middle of its range: it closes, two children take its keys. */
  def split(stream: String, shard: String): Unit = synchronized {
    val all = shardsFor(stream)
    val parent = all.find(s => s.id == shard && !s.closed).getOrElse(throw new IllegalArgumentException(shard))
    val middle = (parent.range.start + parent.range.end) / 2
    parent.closed = true
    all += Shard(shardId(all.size), HashKeyRange(parent.range.start, middle))
    all += Shard(shardId(all.size), HashKeyRange(middle + 1, parent.range.end))
  }

  /** `stream` takes records up to `bytes` (its MaxRecordSizeInKiB); 1 MiB unless set. */
  def recordLimit(stream: String, bytes: Long): this.type = synchronized {
    recordLimits(stream) = bytes
    this
  }

  def describeCalls: Int = synchronized(describes)

  def calls: Seq[Call] = synchronized(sent.toSeq)

  def listShardsCalls: Int = synchronized(listings)

  /** The most calls that were ever running at the same time. */
  def mostCallsInFlight: Int = mostActive.get

  def callsInFlight: Int = active.get

  def records(stream: String): Seq[PutEntry] = synchronized(stored.get(stream).map(_.map(_._2).toSeq).getOrElse(Nil))

  def texts(stream: String): Seq[String] = records(stream).map(e => text(e.data))

  /**
   * The user records a reader gets from the stream, shard by shard in arrival order: aggregates
   * split, and user records outside the hash-key range of the shard Kinesis stored them on
   * kept or dropped as `policy` says (this connector's default keeps all but the marked
   * repeats; the KCL drops them all).
   */
  def userRecords(stream: String, policy: OutOfRangePolicy = OutOfRangePolicy.Keep): Seq[(String, UserRecord)] =
    synchronized {
      val ranges = shardsFor(stream).map(s => s.id -> s.range).toMap
      val byShard = stored.get(stream).map(_.toSeq).getOrElse(Nil).groupBy(_._1)
      shardsFor(stream).toSeq.flatMap { shard =>
        byShard.getOrElse(shard.id, Nil).flatMap { case (_, e) =>
          Deaggregator(e.partitionKey, e.data, Some(RangeCheck(ranges(shard.id), Nil, policy))).records.map(
            shard.id -> _)
        }
      }
    }

  override def listShards(stream: String, pageSize: Int): Seq[ShardDescription] = synchronized {
    listings += 1
    shardsFor(stream).toSeq.map(s => ShardDescription(s.id, None, None, s.closed, Some(s.range)))
  }

  override def maxRecordBytes(stream: String): Long = synchronized {
    describes += 1
    limitOf(stream)
  }

  override def putRecords(stream: String, entries: IndexedSeq[PutEntry]): IndexedSeq[PutResult] = {
    val now = active.incrementAndGet()
    mostActive.accumulateAndGet(now, math.max)
    try {
      gate.foreach(_.await())
      synchronized {
        val bytes = entries.map(_.size.toLong).sum
        require(entries.nonEmpty && entries.size <= 500, s"a PutRecords call of ${entries.size} records")
        require(bytes <= 5L * 1024 * 1024 || entries.size == 1, s"a PutRecords call of $bytes bytes")
        entries.foreach(e => require(e.size <= limitOf(stream), s"a record of ${e.size} bytes"))
        failure.foreach(e => throw e)
        sent += Call(stream, entries.size, bytes, entries.map(_.partitionKey))
        val call = sent.size
        entries.map { entry =>
          refusal(call, entry) match {
            case Some(code) => PutFailure(code, s"$code (fake)")
            case None =>
              val hashKey = HashKeyRange.hashKeyOf(entry.partitionKey, entry.explicitHashKey)
              val shard = shardsFor(stream).find(s => !s.closed && s.range.contains(hashKey)).get
              stored.getOrElseUpdate(stream, mutable.ArrayBuffer.empty) += shard.id -> entry
              PutStored(shard.id)
          }
        }
      }
    } finally active.decrementAndGet()
  }

  private def limitOf(stream: String): Long = recordLimits.getOrElse(stream, KinesisPutApi.DefaultMaxRecordBytes)

  private def shardsFor(stream: String): mutable.ArrayBuffer[Shard] =
    shardsOf.getOrElseUpdate(stream, mutable.ArrayBuffer(Shard(shardId(0), HashKeyRange(0, HashKeyRange.MaxHashKey))))
}

object FakeKinesisPutApi {
  def entry(text: String, key: String = null): PutEntry = {
    val data = text.getBytes(StandardCharsets.UTF_8)
    val k = Option(key).getOrElse(s"key-$text")
    PutEntry(k, data, None, data.length + k.getBytes(StandardCharsets.UTF_8).length)
  }

  /** An entry of exactly `size` bytes, data plus its key (one character unless given). */
  def sized(size: Int, key: String = "k"): PutEntry = {
    val keyBytes = key.getBytes(StandardCharsets.UTF_8).length
    PutEntry(key, new Array[Byte](size - keyBytes), None, size)
  }

  def text(bytes: Array[Byte]): String = new String(bytes, StandardCharsets.UTF_8)

  def shardId(i: Int): String = f"shardId-$i%012d"
}
