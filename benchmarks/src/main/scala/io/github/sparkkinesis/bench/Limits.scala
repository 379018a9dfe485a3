// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench

import scala.collection.mutable

/**
 * The per-shard limits of Kinesis, applied when the endpoint runs with `--limits`: 5 GetRecords
 * a second and 2 MiB/s read per shard (shared by every polling reader), 2 MiB/s per consumer
 * and shard for enhanced fan-out, one SubscribeToShard a second per consumer and shard, no
 * second subscription within 5 seconds of the last one, and 1,000 records and 1 MiB a second
 * written per shard. Keys are "stream/shard" or "consumerArn/shard". Callers hold no lock;
 * every method is synchronized.
 */
final class Limits(clock: () => Long = () => System.nanoTime()) {
  import Limits._

  private val getCalls = mutable.HashMap[String, mutable.Queue[Long]]()
  private val buckets = mutable.HashMap[String, (Double, Long)]()
  private val putRecords = mutable.HashMap[String, (Double, Long)]()
  private val putBytes = mutable.HashMap[String, (Double, Long)]()
  private val lastSubscribe = mutable.HashMap[String, Long]()

  /** Whether a GetRecords on `key` fits in 5 a second (counting it if so). */
  def admitGetRecords(key: String): Boolean = synchronized {
    val now = clock()
    val calls = getCalls.getOrElseUpdate(key, mutable.Queue.empty)
    while (calls.nonEmpty && now - calls.head >= SecondNanos) calls.dequeue()
    if (calls.size >= GetRecordsPerSecond) false
    else { calls.enqueue(now); true }
  }

  /**
   * Bytes `key` may read now: a bucket holding at most one second of 2 MiB/s. It may run into
   * debt (one GetRecords returns up to 10 MiB, as on Kinesis), and the shard then reads
   * nothing until the debt is paid off.
   */
  def readable(key: String): Long = synchronized(refill(buckets, key, ReadBytesPerSecond).toLong)

  def read(key: String, bytes: Long): Unit = synchronized {
    buckets(key) = (refill(buckets, key, ReadBytesPerSecond) - bytes, clock())
  }

  /**
   * Whether a put of one record of `bytes` (data plus partition key) fits in the shard's 1,000
   * records and 1 MiB a second (buckets of one second), taking it if so; Kinesis refuses the
   * record with ProvisionedThroughputExceededException otherwise.
   */
  def admitPut(key: String, bytes: Long): Boolean = synchronized {
    val records = refill(putRecords, key, PutRecordsPerSecond)
    val room = refill(putBytes, key, PutBytesPerSecond)
    if (records < 1 || room < bytes) false
    else {
      val now = clock()
      putRecords(key) = (records - 1, now)
      putBytes(key) = (room - bytes, now)
      true
    }
  }

  private def refill(tokens: mutable.HashMap[String, (Double, Long)], key: String, perSecond: Long): Double = {
    val now = clock()
    val (left, at) = tokens.getOrElse(key, (perSecond.toDouble, now))
    val filled = math.min(perSecond.toDouble, left + (now - at) / 1e9 * perSecond)
    tokens(key) = (filled, now)
    filled
  }

  /** None when a SubscribeToShard on `key` may start now, else the error Kinesis gives. */
  def admitSubscribe(key: String): Option[KinesisFault] = synchronized {
    val now = clock()
    lastSubscribe.get(key) match {
      case Some(at) if now - at < SecondNanos =>
        Some(KinesisFault.limitExceeded(s"Rate exceeded for consumer and shard $key"))
      case Some(at) if now - at < SubscribeRepeatSeconds * SecondNanos =>
        Some(KinesisFault.resourceInUse(s"Another active subscription exists for $key"))
      case _ =>
        lastSubscribe(key) = now
        None
    }
  }
}

object Limits {
  val GetRecordsPerSecond = 5
  val ReadBytesPerSecond: Long = 2L * 1024 * 1024
  val PutRecordsPerSecond: Long = 1000
  val PutBytesPerSecond: Long = 1024L * 1024
  val SubscribeRepeatSeconds = 5
  val SubscriptionLifeMillis: Long = 5 * 60 * 1000
  val MaxRecordsPerCall = 10000
  val MaxBytesPerCall: Long = 10L * 1024 * 1024
  private val SecondNanos = 1000000000L
}

/** An error answer, as Kinesis names them. */
final case class KinesisFault(code: String, status: Int, message: String) extends RuntimeException(message)

object KinesisFault {
  def notFound(message: String): KinesisFault = KinesisFault("ResourceNotFoundException", 400, message)
  def invalid(message: String): KinesisFault = KinesisFault("InvalidArgumentException", 400, message)
  def validation(message: String): KinesisFault = KinesisFault("ValidationException", 400, message)
  def throttled(message: String): KinesisFault = KinesisFault("ProvisionedThroughputExceededException", 400, message)
  def limitExceeded(message: String): KinesisFault = KinesisFault("LimitExceededException", 400, message)
  def resourceInUse(message: String): KinesisFault = KinesisFault("ResourceInUseException", 400, message)
  def unknownOperation(name: String): KinesisFault = KinesisFault("UnknownOperationException", 400, s"operation '$name' is not served")
}
