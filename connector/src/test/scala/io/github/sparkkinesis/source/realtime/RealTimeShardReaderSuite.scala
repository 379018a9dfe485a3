// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source.realtime

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import software.amazon.awssdk.services.kinesis.model.ResourceNotFoundException

import io.github.sparkkinesis.{FakeClock, FakeKinesisApi}
import io.github.sparkkinesis.efo.{
  EfoMetrics, FakeSubscriptionTransport, SubscribeLimiter, SubscriptionCursor, SubscriptionSettings
}
import io.github.sparkkinesis.options.FetchSettings
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.polling.ShardCursor

/** A real-time task's reader over the fake Kinesis (polling) and the fake subscription (EFO). */
class RealTimeShardReaderSuite extends AnyFunSuite with Matchers {
  import ShardPosition._

  private val shard = ShardKey("clicks", "shardId-000000000000")
  private val fetch = FetchSettings(maxRecordsPerFetch = 10000, maxFetchRateMBps = 2.0, minFetchPeriodMs = 200,
    maxFetchDurationMs = 1000)
  private val Second = 1000000000L

  private final class Polling(shards: Int = 1) {
    val clock = new FakeClock
    val api = new FakeKinesisApi().createStream("clicks", shards)
    def reader(start: ShardPosition = TrimHorizon): RealTimeShardReader =
      new RealTimeShardReader(shard, start, new PollingFeed(new ShardCursor(api, shard, start, fetch, clock), clock),
        clock)
  }

  private final class Efo {
    val clock = new FakeClock
    // No heartbeats: a caught-up subscription is silent, so waiting moves the fake clock.
    val transport = new FakeSubscriptionTransport(clock, heartbeats = false)
    val metrics = new EfoMetrics
    def reader(start: ShardPosition = TrimHorizon): RealTimeShardReader = {
      val cursor = new SubscriptionCursor(transport, shard, "arn:consumer", start, SubscriptionSettings(), "fake",
        new SubscribeLimiter(SubscribeLimiter.MinSpacingMs, clock), metrics, clock, new Random(1))
      new RealTimeShardReader(shard, start, new SubscriptionFeed(cursor, metrics), clock)
    }
  }

  /** Records until `next` gives none; the deadline is `seconds` away on the reader's clock. */
  private def drain(reader: RealTimeShardReader, clock: FakeClock, seconds: Long = 5): Seq[String] =
    Iterator.continually(reader.next(clock.nanoTime() + seconds * Second)).takeWhile(_.isDefined).map(
      _.get.sequenceNumber).toSeq

  test("polling: hands out one record at a time in order; the position is after the last one handed out") {
    val p = new Polling
    val seqs = p.api.putMany("clicks", shard.shardId, "r", 5)
    val reader = p.reader()
    reader.next(p.clock.nanoTime() + Second).map(_.sequenceNumber) shouldBe Some(seqs.head)
    reader.position shouldBe AfterSequence(seqs.head)
    reader.next(p.clock.nanoTime() + Second).map(_.sequenceNumber) shouldBe Some(seqs(1))
    reader.position shouldBe AfterSequence(seqs(1))
    reader.stats.records shouldBe 2
  }

  test("polling: at the tip it waits for records until the deadline and not past it") {
    val p = new Polling
    val reader = p.reader()
    val deadline = p.clock.nanoTime() + Second + 50000000L
    reader.next(deadline) shouldBe None
    p.clock.nanoTime() shouldBe deadline
    p.api.callCount("GetRecords") shouldBe 6 // paced 200 ms apart over 1.05 s
    reader.position shouldBe TrimHorizon
  }

  test("polling: records that arrive while it waits are handed out before the deadline") {
    val p = new Polling
    val reader = p.reader()
    reader.next(p.clock.nanoTime() + Second) shouldBe None
    val seq = p.api.put("clicks", shard.shardId, "late").head
    reader.next(p.clock.nanoTime() + Second).map(_.sequenceNumber) shouldBe Some(seq)
  }

  test("polling: records fetched beyond the deadline stay with the reader for the next batch's task") {
    val p = new Polling
    val seqs = p.api.putMany("clicks", shard.shardId, "r", 6)
    val reader = p.reader()
    (0 until 2).flatMap(_ => reader.next(p.clock.nanoTime() + Second)).map(_.sequenceNumber) shouldBe seqs.take(2)
    // The batch ends here; the task's offset is after the second record, though six were fetched.
    reader.position shouldBe AfterSequence(seqs(1))
    drain(reader, p.clock) shouldBe seqs.drop(2)
  }

  test("polling: a throttled shard ends the task at its deadline, reading half as much, and the next batch goes on") {
    val p = new Polling
    val seqs = p.api.putMany("clicks", shard.shardId, "r", 3)
    val reader = p.reader()
    p.api.throttleNextGetRecords(4) // back-offs of 1 to 10 s each
    val deadline = p.clock.nanoTime() + Second / 2
    reader.next(deadline) shouldBe None
    p.clock.nanoTime() shouldBe deadline
    reader.throttleEvents shouldBe 1
    reader.position shouldBe TrimHorizon
    // The next batches' tasks wait out the back-offs, each within its own deadline, then read on.
    val read = Iterator.continually(reader.next(p.clock.nanoTime() + Second / 2)).take(200).flatten
      .map(_.sequenceNumber).take(3).toList
    read shouldBe seqs
    reader.throttleEvents shouldBe 4
  }

  test("polling: a reader throttled before its first call (its retention check) is not taken for a closed shard") {
    val p = new Polling
    val seqs = p.api.putMany("clicks", shard.shardId, "r", 3)
    val reader = p.reader(AfterSequence(seqs.head)) // a restart: the reader checks retention first
    p.api.throttleNextGetRecords(2)
    reader.next(p.clock.nanoTime() + Second / 2) shouldBe None
    reader.isEnded shouldBe false
    reader.position shouldBe AfterSequence(seqs.head)
    val read = Iterator.continually(reader.next(p.clock.nanoTime() + Second / 2)).take(200).flatten
      .map(_.sequenceNumber).take(2).toList
    read shouldBe seqs.tail
  }

  test("polling: a closed shard ends the reader at once after its last record, at a ShardEnd") {
    val p = new Polling(shards = 1)
    val seqs = p.api.putMany("clicks", shard.shardId, "r", 3)
    p.api.split("clicks", shard.shardId)
    val reader = p.reader()
    val started = p.clock.nanoTime()
    drain(reader, p.clock, seconds = 60) shouldBe seqs
    reader.position shouldBe ShardEnd(Some(seqs.last))
    reader.isEnded shouldBe true
    (p.clock.nanoTime() - started) should be < 60 * Second
  }

  test("polling: a reader started after a sequence number continues exactly there") {
    val p = new Polling
    val seqs = p.api.putMany("clicks", shard.shardId, "r", 4)
    drain(p.reader(AfterSequence(seqs(1))), p.clock) shouldBe seqs.drop(2)
  }

  test("efo: hands out the subscription's records in order, and reports one open subscription") {
    val e = new Efo
    val seqs = e.transport.put(7)
    val reader = e.reader()
    drain(reader, e.clock, seconds = 1) shouldBe seqs
    reader.position shouldBe AfterSequence(seqs.last)
    reader.stats.subscribeCalls shouldBe 1
    reader.stats.liveSubscriptions shouldBe 1
    reader.close()
    reader.stats.liveSubscriptions shouldBe 0
  }

  test("efo: waits for events until the deadline, then continues on the same subscription") {
    val e = new Efo
    val reader = e.reader()
    val deadline = e.clock.nanoTime() + Second
    reader.next(deadline) shouldBe None
    e.clock.nanoTime() should be >= deadline
    val seqs = e.transport.put(2)
    e.transport.pump()
    drain(reader, e.clock, seconds = 1) shouldBe seqs
    e.transport.calls should have size 1
  }

  test("efo: a closed shard ends at a ShardEnd after its last record") {
    val e = new Efo
    val seqs = e.transport.put(4)
    e.transport.closeShard()
    val reader = e.reader()
    drain(reader, e.clock, seconds = 30) shouldBe seqs
    reader.position shouldBe ShardEnd(Some(seqs.last))
  }

  test("efo: a consumer deregistered behind the query's back ends the task at once, where it stood") {
    val e = new Efo
    e.transport.failNext(ResourceNotFoundException.builder().message("ConsumerARN not found").build())
    val reader = e.reader(AfterSequence("41"))
    val deadline = e.clock.nanoTime() + 30 * Second
    reader.next(deadline) shouldBe None
    e.clock.nanoTime() should be < deadline
    reader.consumerDeleted shouldBe true
    reader.position shouldBe AfterSequence("41")
    reader.isEnded shouldBe false
    reader.next(deadline) shouldBe None
    e.transport.calls should have size 1
  }

  test("polling with failOnDataLoss false: records deleted by retention are counted once, and the rest read") {
    val clock = new FakeClock
    val api = new FakeKinesisApi().createStream("clicks", 1)
    val seqs = api.putMany("clicks", shard.shardId, "r", 10)
    api.trim("clicks", shard.shardId, 6)
    val start = AfterSequence(seqs(2))
    val cursor = new ShardCursor(api, shard, start, fetch.copy(failOnDataLoss = false), clock)
    val reader = new RealTimeShardReader(shard, start, new PollingFeed(cursor, clock), clock)
    drain(reader, clock, seconds = 1) shouldBe seqs.drop(6)
    reader.stats.dataLossEvents shouldBe 1
  }

  test("the task's counts are those since it took the reader") {
    val before = ShardReadStats(10, 100, 5, 1, 2, 1, 1, 2)
    ShardReadStats(15, 180, 0, 1, 3, 2, 1, 3).since(before) shouldBe ShardReadStats(5, 80, 0, 0, 1, 1, 1, 1)
  }
}
