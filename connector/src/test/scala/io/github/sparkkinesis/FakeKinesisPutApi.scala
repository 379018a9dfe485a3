package io.github.sparkkinesis

import java.nio.charset.StandardCharsets
import java.util.concurrent.CountDownLatch
import java.util.concurrent.atomic.AtomicInteger

import scala.collection.mutable

import io.github.sparkkinesis.client.{KinesisPutApi, PutEntry, PutFailure}

/**
 * An in-memory PutRecords behind [[KinesisPutApi]]. It stores what it accepts per stream, in
 * arrival order, and refuses entries as a test scripts it with [[refuse]]: the way Kinesis
 * refuses some entries of a call when a shard is over its limits. It checks the Kinesis limits
 * of a call itself, so a test fails if the sink ever sends more than Kinesis takes.
 */
final class FakeKinesisPutApi extends KinesisPutApi {
  /** One call as sent: the stream, how many entries, how many bytes (data + partition keys). */
  final case class Call(stream: String, records: Int, bytes: Long)

  private val stored = mutable.Map.empty[String, mutable.ArrayBuffer[PutEntry]]
  private val sent = mutable.ArrayBuffer.empty[Call]
  private var refusal: (Int, PutEntry) => Option[String] = (_, _) => None
  private var failure: Option[RuntimeException] = None
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

  def calls: Seq[Call] = synchronized(sent.toSeq)

  /** The most calls that were ever running at the same time. */
  def mostCallsInFlight: Int = mostActive.get

  def callsInFlight: Int = active.get

  def records(stream: String): Seq[PutEntry] = synchronized(stored.get(stream).map(_.toSeq).getOrElse(Nil))

  def texts(stream: String): Seq[String] = records(stream).map(e => new String(e.data, StandardCharsets.UTF_8))

  override def putRecords(stream: String, entries: IndexedSeq[PutEntry]): IndexedSeq[Option[PutFailure]] = {
    val now = active.incrementAndGet()
    mostActive.accumulateAndGet(now, math.max)
    try {
      gate.foreach(_.await())
      synchronized {
        val bytes = entries.map(_.size.toLong).sum
        require(entries.nonEmpty && entries.size <= 500, s"a PutRecords call of ${entries.size} records")
        require(bytes <= 5L * 1024 * 1024, s"a PutRecords call of $bytes bytes")
        failure.foreach(e => throw e)
        sent += Call(stream, entries.size, bytes)
        val call = sent.size
        entries.map { entry =>
          refusal(call, entry) match {
            case Some(code) => Some(PutFailure(code, s"$code (fake)"))
            case None =>
              stored.getOrElseUpdate(stream, mutable.ArrayBuffer.empty) += entry
              None
          }
        }
      }
    } finally active.decrementAndGet()
  }
}

object FakeKinesisPutApi {
  def entry(text: String, key: String = null): PutEntry = {
    val data = text.getBytes(StandardCharsets.UTF_8)
    val k = Option(key).getOrElse(s"key-$text")
    PutEntry(k, data, None, data.length + k.getBytes(StandardCharsets.UTF_8).length)
  }

  /** An entry of exactly `size` bytes, data plus its one-character key. */
  def sized(size: Int): PutEntry = PutEntry("k", new Array[Byte](size - 1), None, size)
}
