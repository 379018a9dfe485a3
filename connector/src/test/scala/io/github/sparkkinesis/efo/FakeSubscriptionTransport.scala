// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.efo

import java.nio.charset.StandardCharsets

import scala.collection.mutable

import org.reactivestreams.{Subscriber, Subscription}

import io.github.sparkkinesis.FakeClock
import io.github.sparkkinesis.client.{
  CredentialsConfig, KinesisRecord, ShardEvent, SubscriptionHandle, SubscriptionTransport, UserRecords
}
import io.github.sparkkinesis.client.failures.AwsFailures
import io.github.sparkkinesis.kpl.RangeCheck
import io.github.sparkkinesis.offsets.ShardPosition

/**
 * SubscribeToShard on an in-memory shard. Each subscription is a publisher that emits only
 * what was requested: events of up to `recordsPerEvent` records from its start, an event
 * without records when caught up (if `heartbeats`), and, on a closed shard read to its end, a
 * final event without continuation. A subscription completes after `eventsPerSubscription`
 * events, as Kinesis ends each after 5 minutes. Signals are delivered synchronously, inside
 * `subscribe` and `request`.
 *
 * Sequence numbers grow past a power of ten (see FakeKinesisApi), so string comparison would
 * order them wrongly.
 */
final class FakeSubscriptionTransport(
    clock: FakeClock,
    recordsPerEvent: Int = 3,
    eventsPerSubscription: Int = Int.MaxValue,
    heartbeats: Boolean = true,
    credentials: CredentialsConfig = CredentialsConfig.DefaultChain) extends SubscriptionTransport {

  /** As the SDK's transport shows a failure: with the `credentials` of the connection masked. */
  override def shown(failure: Throwable): Throwable = AwsFailures.shown(failure, credentials)

  val base: BigInt = BigInt(10).pow(55) - 3500

  private val records = mutable.ArrayBuffer.empty[KinesisRecord]
  private var closed = false
  private val failures = mutable.Queue.empty[Throwable]

  final case class Call(consumerArn: String, shardId: String, start: ShardPosition, atMillis: Long)
  val calls = mutable.ArrayBuffer.empty[Call]
  val sessions = mutable.ArrayBuffer.empty[Session]

  def put(n: Int, prefix: String = "r"): Seq[String] = synchronized {
    (0 until n).map { i =>
      val seq = (base + BigInt(records.size) * 1000).toString
      records += KinesisRecord(s"key-$i", s"$prefix-${records.size}".getBytes(StandardCharsets.UTF_8), seq,
        1593105825000L + records.size)
      seq
    }
  }

  /** Appends one Kinesis record with this data (a KPL aggregate, say); returns its sequence number. */
  def putRecord(partitionKey: String, data: Array[Byte]): String = synchronized {
    val seq = (base + BigInt(records.size) * 1000).toString
    records += KinesisRecord(partitionKey, data, seq, 1593105825000L + records.size)
    seq
  }

  private var rewind = 0
  private var rangeCheck: Option[RangeCheck] = None

  /** The next subscription starts `n` records before where it was asked to (a faulty server). */
  def rewindNextSubscription(n: Int): Unit = synchronized { rewind = n }

  def closeShard(): Unit = synchronized { closed = true }

  /** The next subscribe calls fail at once with these errors, in order. */
  def failNext(errors: Throwable*): Unit = synchronized { failures ++= errors }

  /** Offers new records to subscriptions that have demand (without heartbeats they wait). */
  def pump(): Unit = sessions.toList.foreach(_.emit())

  def text(r: KinesisRecord): String = new String(r.data, StandardCharsets.UTF_8)

  override def subscribe(consumerArn: String, shardId: String, start: ShardPosition, rangeCheck: Option[RangeCheck],
      subscriber: Subscriber[ShardEvent]): SubscriptionHandle = {
    val session = synchronized {
      this.rangeCheck = rangeCheck
      calls += Call(consumerArn, shardId, start, clock.nowMillis)
      val s = new Session(subscriber, math.max(0, startIndex(start) - rewind),
        if (failures.nonEmpty) Some(failures.dequeue()) else None)
      sessions += s
      rewind = 0
      s
    }
    subscriber.onSubscribe(session)
    session.failure.foreach(session.fail)
    () => session.cancel()
  }

  private def startIndex(start: ShardPosition): Int = start match {
    case ShardPosition.TrimHorizon => 0
    case ShardPosition.AtTimestamp(ms) =>
      val i = records.indexWhere(_.approximateArrivalMillis >= ms)
      if (i < 0) records.size else i
    case ShardPosition.AfterSequence(seq, Some(_)) => records.indexWhere(_.sequenceNumber == seq)
    case ShardPosition.AfterSequence(seq, None) =>
      val i = records.indexWhere(_.sequenceNumber == seq)
      if (i >= 0) i + 1
      else {
        // A continuation past the last record (an event without records) resumes at the tip.
        records.indexWhere(r => BigInt(r.sequenceNumber) > BigInt(seq)) match {
          case -1 => records.size
          case j => j
        }
      }
    case e: ShardPosition.ShardEnd => throw new IllegalArgumentException(s"subscribe at $e")
  }

  /** One subscription: a publisher that keeps reactive-streams demand. */
  final class Session(subscriber: Subscriber[ShardEvent], var index: Int, val failure: Option[Throwable])
    extends Subscription {
    var requested = 0L
    var delivered = 0
    var cancelled = false
    var ended = false
    private var emitting = false

    override def request(n: Long): Unit = {
      require(n > 0, s"request($n)")
      requested += n
      emit()
    }

    override def cancel(): Unit = cancelled = true

    def fail(t: Throwable): Unit = if (!ended) {
      ended = true
      subscriber.onError(t)
    }

    def emit(): Unit = if (!emitting) {
      emitting = true
      try {
        while (!cancelled && !ended && delivered < requested && failure.isEmpty) {
          nextEvent() match {
            case Some(e) =>
              delivered += 1
              subscriber.onNext(e)
              if (e.isShardEnd || delivered >= eventsPerSubscription) {
                ended = true
                subscriber.onComplete()
              }
            case None => return
          }
        }
      } finally emitting = false
    }

    private def nextEvent(): Option[ShardEvent] = FakeSubscriptionTransport.this.synchronized {
      val batch = records.slice(index, math.min(index + recordsPerEvent, records.size)).toSeq
      index += batch.size
      val atEnd = index == records.size
      val behind =
        if (atEnd) 0L else records.last.approximateArrivalMillis - records(index - 1).approximateArrivalMillis
      val continuation = if (index > 0) records(index - 1).sequenceNumber else (base - 1000).toString
      if (batch.isEmpty && atEnd && closed) Some(ShardEvent(Nil, None, 0L, Seq("shardId-000000000002")))
      else if (batch.isEmpty && !heartbeats) None
      else {
        // Split aggregates as the SDK adapter does.
        val (split, kpl) = UserRecords.expand(
          batch.map(r => UserRecords.Raw(r.partitionKey, r.data, r.sequenceNumber, r.approximateArrivalMillis)),
          rangeCheck)
        Some(ShardEvent(split, Some(continuation), behind, kpl = kpl))
      }
    }
  }
}
