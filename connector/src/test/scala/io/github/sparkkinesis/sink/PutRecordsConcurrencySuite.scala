// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import java.util.concurrent.{Executors, ThreadLocalRandom, TimeUnit}
import java.util.concurrent.atomic.AtomicInteger

import scala.concurrent.duration._
import scala.util.Random

import org.scalatest.concurrent.Eventually
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.FakeKinesisPutApi
import io.github.sparkkinesis.FakeKinesisPutApi.entry
import io.github.sparkkinesis.client.{KinesisPutApi, PutEntry, PutResult, ShardDescription}
import io.github.sparkkinesis.options.PutSettings
import io.github.sparkkinesis.time.SystemClock

/**
 * The batcher's threads at once: the writer adds rows of many keys while calls finish in any
 * order (each answer comes after a random delay), Kinesis refuses part of most calls, and the
 * linger timer sends lanes the writer left alone. What Kinesis stored must be every row once,
 * each key's in the order written, and the bounds must hold throughout.
 */
class PutRecordsConcurrencySuite extends AnyFunSuite with Matchers with Eventually {
  implicit override val patienceConfig: PatienceConfig = PatienceConfig(timeout = 30.seconds, interval = 20.millis)

  private val Throttled = "ProvisionedThroughputExceededException"
  private val Streams = Seq("a", "b")
  private val Keys = 64
  private val PerKey = 40

  private val settings = PutSettings(maxRecordsPerPut = 7, maxBytesPerPut = 5L * 1024 * 1024, maxInFlightPuts = 4,
    maxPutRetries = 50, retryBackoffMs = 1, maxRetryBackoffMs = 4, maxPutLingerMs = 2)

  /** The fake Kinesis, answering each call after up to 3 ms, so calls end in another order than they began. */
  private final class SlowKinesis(fake: FakeKinesisPutApi) extends KinesisPutApi {
    override def putRecords(stream: String, entries: IndexedSeq[PutEntry]): IndexedSeq[PutResult] = {
      Thread.sleep(ThreadLocalRandom.current().nextInt(4).toLong)
      fake.putRecords(stream, entries)
    }
    override def listShards(stream: String, pageSize: Int): Seq[ShardDescription] = fake.listShards(stream, pageSize)
    override def maxRecordBytes(stream: String): Long = fake.maxRecordBytes(stream)
  }

  /** Row n of key k of stream s is "s/k:n"; the writer interleaves keys and streams, as a task's rows would. */
  private def rows: Seq[(String, String, String)] =
    for (n <- 0 until PerKey; k <- 0 until Keys; s <- Streams) yield (s, s"key$k", s"$s/key$k:$n")

  private def hammer(s: PutSettings, checkOrder: Boolean): Unit = {
    val fake = new FakeKinesisPutApi
    val random = new Random(11)
    // A quarter of the entries of most calls refused, most of them as throttling.
    fake.refuse((_, _) =>
      if (random.nextDouble() < 0.25) Some(if (random.nextInt(4) > 0) Throttled else "InternalFailure") else None)
    val counters = new KinesisSinkCounters
    val batcher = new PutRecordsBatcher(new SlowKinesis(fake), s, "fake", counters, SystemClock)
    val lanes = if (s.orderPerKey) s.maxInFlightPuts else 1
    val queueBound = Streams.size * lanes * s.maxRecordsPerPut
    val mostQueued = new AtomicInteger()
    val watcher = Executors.newSingleThreadScheduledExecutor()
    watcher.scheduleWithFixedDelay(() => mostQueued.accumulateAndGet(batcher.queuedRows, math.max), 0, 1,
      TimeUnit.MILLISECONDS)
    try {
      rows.zipWithIndex.foreach { case ((stream, key, text), i) =>
        batcher.add(stream, entry(text, key))
        if (i % 211 == 0) Thread.sleep(3) // The writer pauses: lanes not full wait for the timer.
      }
      // Without a flush, every lane is sent at last, by the timer or as calls finish.
      eventually(Streams.map(fake.records(_).size).sum shouldBe rows.size)
      eventually(batcher.callsInFlight shouldBe 0)
      // With no call left to finish, only the timer sends a lone row.
      Streams.foreach(stream => batcher.add(stream, entry(s"$stream/late", "late")))
      eventually(Streams.map(fake.records(_).size).sum shouldBe rows.size + Streams.size)
      batcher.flush()
    } finally {
      watcher.shutdownNow()
      batcher.close()
    }

    Streams.foreach { stream =>
      val stored = fake.records(stream).map(e => FakeKinesisPutApi.text(e.data)).filterNot(_ == s"$stream/late")
      stored.distinct.size shouldBe stored.size // Nothing stored twice.
      val byKey = stored.groupBy(_.split(':')(0)).map { case (k, ts) => k -> ts.map(_.split(':')(1).toInt) }
      byKey.keySet shouldBe (0 until Keys).map(k => s"$stream/key$k").toSet
      if (checkOrder) byKey.values.foreach(_ shouldBe (0 until PerKey))
      else byKey.values.foreach(_.sorted shouldBe (0 until PerKey))
    }
    counters.recordsWritten.get shouldBe rows.size + Streams.size
    counters.failedRecords.get shouldBe 0
    counters.putRetries.get should be > 0L
    fake.mostCallsInFlight should be <= s.maxInFlightPuts
    all(fake.calls.map(_.records)) should be <= s.maxRecordsPerPut
    if (checkOrder) all(fake.calls.map(c => c.keys.distinct.size == c.keys.size)) shouldBe true
    mostQueued.get should be <= queueBound
    batcher.queuedRows shouldBe 0
  }

  test("order per key under out-of-order answers, partial refusals and the linger timer") {
    hammer(settings, checkOrder = true)
  }

  test("without orderPerKey, every row stored once under the same storm") {
    hammer(settings.copy(orderPerKey = false), checkOrder = false)
  }
}
