// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench

import java.nio.charset.StandardCharsets.US_ASCII
import java.util.concurrent.ConcurrentHashMap

import scala.jdk.CollectionConverters._

/** A record kept in memory: one put, or produced at a rate. Synthetic records are never stored. */
final case class StoredRecord(partitionKey: String, data: Array[Byte], arrivalMillis: Long)

/**
 * One shard: `synthetic` records made from one template on demand (no memory per record),
 * then the records appended (puts, the producer). Position p is the p-th record; its sequence
 * number is a fixed-width decimal that encodes the shard and p, so a sequence number maps back
 * to its position without a lookup.
 */
final class BenchShard(val stream: BenchStream, val index: Int, synthetic: Long, recordSize: Int) {
  val shardId: String = f"shardId-$index%012d"
  val shardIdBytes: Array[Byte] = shardId.getBytes(US_ASCII)
  /** The first digits of every sequence number of this shard; [[Sequence]] adds the position. */
  val sequencePrefix: Array[Byte] = Sequence.prefix(index)
  val syntheticData: Array[Byte] = Array.tabulate(recordSize)(i => ('a' + i % 26).toByte)
  val syntheticKey: String = s"pk-$index"
  lazy val cborTemplate: (Array[Byte], Array[Byte]) = RecordRun.template(this, cbor = true)
  lazy val jsonTemplate: (Array[Byte], Array[Byte]) = RecordRun.template(this, cbor = false)
  private val appended = new java.util.ArrayList[StoredRecord]()
  @volatile private var appendedCount = 0

  def end: Long = synthetic + appendedCount

  def isSynthetic(position: Long): Boolean = position < synthetic

  /** A stored record; `position` must be past the synthetic ones and before [[end]]. */
  def stored(position: Long): StoredRecord = appended.synchronized(appended.get((position - synthetic).toInt))

  def append(record: StoredRecord): Long = appended.synchronized {
    appended.add(record)
    appendedCount += 1
    synthetic + appendedCount - 1
  }

  def dataSize(position: Long): Int = if (isSynthetic(position)) recordSize else stored(position).data.length

  def arrivalMillis(position: Long): Long = if (isSynthetic(position)) stream.createdMillis else stored(position).arrivalMillis

  /** The first position whose record arrived at or after `millis`. */
  def positionAt(millis: Long): Long = {
    if (millis <= stream.createdMillis) 0L
    else {
      var p = synthetic
      val n = end
      while (p < n && stored(p).arrivalMillis < millis) p += 1
      p
    }
  }

  def sequenceNumber(position: Long): String = Sequence.text(sequencePrefix, position)

  /** Hash keys split evenly over the shards, as CreateStream does. */
  def hashKeyRange: (String, String) = {
    val span = (BigInt(1) << 128) / stream.shards.size
    val start = span * index
    val last = if (index == stream.shards.size - 1) (BigInt(1) << 128) - 1 else start + span - 1
    (start.toString, last.toString)
  }
}

final class BenchStream(val name: String, shardCount: Int, recordsPerShard: Long, recordSize: Int) {
  val createdMillis: Long = System.currentTimeMillis()
  val arn: String = s"arn:aws:kinesis:us-east-1:000000000000:stream/$name"
  val shards: IndexedSeq[BenchShard] = (0 until shardCount).map(i => new BenchShard(this, i, recordsPerShard, recordSize))
  val consumers = new ConcurrentHashMap[String, BenchConsumer]()
  /** The largest record a put may hold, data plus partition key (MaxRecordSizeInKiB). */
  @volatile var maxRecordKiB: Int = BenchStream.DefaultMaxRecordKiB

  def shard(shardId: String): Option[BenchShard] = {
    val digits = shardId.stripPrefix("shardId-")
    if (digits.isEmpty || !digits.forall(_.isDigit) || digits.length > 12) None
    else shards.lift(digits.toInt).filter(_.shardId == shardId)
  }

  /**
   * The shard a put lands on, as Kinesis routes it: the shard whose hash-key range holds the
   * explicit hash key, or else the MD5 of the partition key read as an unsigned 128-bit number.
   */
  def shardFor(partitionKey: String, explicitHashKey: Option[String]): BenchShard = {
    val hashKey = explicitHashKey.map(BigInt(_)).getOrElse(
      BigInt(1, java.security.MessageDigest.getInstance("MD5").digest(partitionKey.getBytes(java.nio.charset.StandardCharsets.UTF_8))))
    val span = (BigInt(1) << 128) / shards.size
    shards((hashKey / span).min(BigInt(shards.size - 1)).toInt)
  }
}

object BenchStream {
  val DefaultMaxRecordKiB = 1024
  val MostMaxRecordKiB = 10240
}

final case class BenchConsumer(name: String, arn: String, createdMillis: Long)

/** Every stream of one endpoint, by name. */
final class BenchStreams {
  private val streams = new ConcurrentHashMap[String, BenchStream]()

  def create(name: String, shards: Int, recordsPerShard: Long, recordSize: Int): Option[BenchStream] = {
    val stream = new BenchStream(name, shards, recordsPerShard, recordSize)
    if (streams.putIfAbsent(name, stream) == null) Some(stream) else None
  }

  def get(name: String): Option[BenchStream] = Option(streams.get(name))

  def delete(name: String): Boolean = streams.remove(name) != null

  def names: Seq[String] = streams.keySet().asScala.toSeq.sorted

  /** The stream named by a stream or consumer ARN. */
  def byArn(arn: String): Option[BenchStream] = {
    val at = arn.indexOf(":stream/")
    if (at < 0) None else get(arn.substring(at + ":stream/".length).takeWhile(_ != '/'))
  }
}

/**
 * Sequence numbers "49" + 7 digits of shard index + 19 digits of position + 1 (so that "just
 * before the first record", where an empty subscription resumes after, has one too), and
 * shard iterators "stream|shard index|position". Both are opaque to clients.
 */
object Sequence {
  val Width = 28
  private val PositionDigits = 19

  def prefix(shardIndex: Int): Array[Byte] = f"49$shardIndex%07d".getBytes(US_ASCII)

  def text(prefix: Array[Byte], position: Long): String = {
    val out = new Array[Byte](Width)
    write(prefix, position, out, 0)
    new String(out, US_ASCII)
  }

  /** Writes the 28 digits at `out(at)`. */
  def write(prefix: Array[Byte], position: Long, out: Array[Byte], at: Int): Unit = {
    System.arraycopy(prefix, 0, out, at, prefix.length)
    var rest = position + 1
    var i = at + Width - 1
    while (i >= at + prefix.length) {
      out(i) = ('0' + (rest % 10)).toByte
      rest /= 10
      i -= 1
    }
  }

  /** (shard index, position) of a sequence number this endpoint issued. */
  def parse(sequence: String): Option[(Int, Long)] =
    if (sequence.length != Width || !sequence.startsWith("49") || !sequence.forall(_.isDigit)) None
    else Some((sequence.substring(2, Width - PositionDigits).toInt, sequence.substring(Width - PositionDigits).toLong - 1))

  def iterator(stream: String, shardIndex: Int, position: Long): String = s"$stream|$shardIndex|$position"

  def parseIterator(iterator: String): Option[(String, Int, Long)] = iterator.split('|') match {
    case Array(stream, shard, position) if shard.forall(_.isDigit) && position.forall(_.isDigit) && shard.nonEmpty && position.nonEmpty =>
      Some((stream, shard.toInt, position.toLong))
    case _ => None
  }
}
