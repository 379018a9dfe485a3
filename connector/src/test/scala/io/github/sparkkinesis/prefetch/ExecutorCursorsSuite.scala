// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import java.nio.ByteBuffer
import java.util.UUID

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.client.RecordBatch
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.options.FetchSettings
import io.github.sparkkinesis.reader.ShardReader

/**
 * Readers an executor keeps between prefetch tasks are let go once it no longer owns their
 * shards (the shard is read on another executor now, or no longer tracked), and all of a
 * query's once it stops, so EFO subscriptions do not stay open on the old executor.
 */
class ExecutorCursorsSuite extends AnyFunSuite with Matchers {

  private class FakeReader(key: ShardKey, val position: ShardPosition, override val consumer: Option[String] = None)
    extends ShardReader {
    override def shard: ShardKey = key
    var closed = false
    var fetches = 0
    override def isEnded: Boolean = false
    override def atTip: Boolean = true
    override def throttleEvents: Int = 0
    override def fetch(): RecordBatch = {
      fetches += 1
      RecordBatch(Nil, Some("next"), 0L)
    }
    override def close(): Unit = closed = true
  }

  private final class FakeSink(val location: String) extends BlockSink {
    override def put(name: String, block: Array[ByteBuffer]): Option[String] = Some(location)
  }

  private val here = "executor_host_1"
  private val elsewhere = "executor_host_2"
  private def shard(i: Int) = ShardKey("clicks", f"shardId-$i%012d")
  private val start = ShardPosition.AfterSequence("100")
  private def newInstance() = UUID.randomUUID().toString

  /** Readers of `shards`, cached on this executor for `instance` as finished tasks leave them. */
  private def cache(instance: String, shards: Int*): Map[Int, FakeReader] =
    shards.map { i =>
      val reader = new FakeReader(shard(i), start)
      ExecutorCursors.release(instance, reader)
      i -> reader
    }.toMap

  private def work(instance: String, owners: Map[ShardKey, String], stopping: Boolean = false) =
    PrefetchWork(instance, 7, FetchSettings(100, 2.0, 0L, 1000L), 1024L, None, returnWhenCaughtUp = true,
      owners = owners, stopping = stopping)

  test("readers of shards owned by another executor or no longer tracked are closed; owned and kept ones stay") {
    val instance = newInstance()
    val readers = cache(instance, 0, 1, 2, 3)
    val other = newInstance()
    val othersReader = cache(other, 1)(1)
    val owners = Map(shard(0) -> here, shard(1) -> elsewhere, shard(3) -> elsewhere) // shard 2: no longer tracked

    ExecutorCursors.releaseUnowned(instance, here, owners, keep = Set(shard(3))) shouldBe 2

    readers.filter(_._2.closed).keySet shouldBe Set(1, 2)
    ExecutorCursors.cached(instance) shouldBe Set(shard(0), shard(3))
    othersReader.closed shouldBe false // another query's reader is not this query's business
    ExecutorCursors.cached(other) shouldBe Set(shard(1))
    ExecutorCursors.forget(other)
    ExecutorCursors.forget(instance)
  }

  test("a prefetch task first closes the readers its executor no longer owns, then reuses its own") {
    val instance = newInstance()
    val readers = cache(instance, 0, 1, 2)
    // Shard 1 moved to another executor in the last round; this task reads shard 0 and 2.
    val owners = Map(shard(0) -> here, shard(1) -> elsewhere, shard(2) -> here)
    val created = Seq.newBuilder[ShardKey]

    val result = PrefetchTask.run(r => { created += r.shard; new FakeReader(r.shard, r.from) },
      Seq(ShardFetchRequest(shard(0), start), ShardFetchRequest(shard(2), start)),
      work(instance, owners), store = new FakeSink(here))

    readers(1).closed shouldBe true
    readers(0).closed shouldBe false
    readers(2).closed shouldBe false
    readers(0).fetches should be >= 1
    created.result() shouldBe empty
    result.location shouldBe here
    result.status.map(_.shard) shouldBe Seq(shard(0), shard(2))
    ExecutorCursors.cached(instance) shouldBe Set(shard(0), shard(2))
    ExecutorCursors.forget(instance)
  }

  test("a reader of a consumer since deleted and registered again is closed, and one of the new consumer made") {
    val instance = newInstance()
    val old = new FakeReader(shard(0), start, Some("arn:consumer/etl:1"))
    ExecutorCursors.release(instance, old)
    val created = Seq.newBuilder[Option[String]]

    PrefetchTask.run(
      r => { created += Some("arn:consumer/etl:2"); new FakeReader(r.shard, r.from, Some("arn:consumer/etl:2")) },
      Seq(ShardFetchRequest(shard(0), start)),
      work(instance, Map(shard(0) -> here)).copy(consumers = Map("clicks" -> "arn:consumer/etl:2")),
      store = new FakeSink(here))

    old.closed shouldBe true
    created.result() shouldBe Seq(Some("arn:consumer/etl:2"))
    ExecutorCursors.forget(instance)
  }

  test("a task on an executor that does not own its shard keeps the reader it may reuse there") {
    val instance = newInstance()
    val readers = cache(instance, 0)
    // The scheduler ran shard 0's task here although its reader was last on another executor;
    // the one cached here still stands at the requested position.
    PrefetchTask.run(r => new FakeReader(r.shard, r.from), Seq(ShardFetchRequest(shard(0), start)),
      work(instance, Map(shard(0) -> elsewhere)), store = new FakeSink(here))
    readers(0).closed shouldBe false
    readers(0).fetches should be >= 1
    ExecutorCursors.forget(instance)
  }

  test("a stopped query's readers are closed, also one a task still running releases afterwards") {
    val instance = newInstance()
    val readers = cache(instance, 0, 1)
    val inUse = ExecutorCursors.acquire(instance, shard(1), start)(fail("the cached reader stands there"))

    val result = PrefetchTask.run(_ => fail("a stopping task reads nothing"), Nil,
      work(instance, Map.empty, stopping = true), store = new FakeSink(here))

    result.blocks shouldBe empty
    result.location shouldBe here
    readers(0).closed shouldBe true
    readers(1).closed shouldBe false // still in a running task's hands
    ExecutorCursors.release(instance, inUse)
    readers(1).closed shouldBe true
    ExecutorCursors.cached(instance) shouldBe empty
  }

  test("a reader released while its query stops is closed, not kept for a query that no longer runs") {
    val instance = newInstance()
    // The release asks for the reader's shard after it checked that the query still runs: the
    // stop lands right there.
    val releasedDuringTheStop = new FakeReader(shard(0), start) {
      private var stopped = false
      override def shard: ShardKey = {
        if (!stopped) { stopped = true; ExecutorCursors.forget(instance) }
        super.shard
      }
    }
    ExecutorCursors.release(instance, releasedDuringTheStop)
    releasedDuringTheStop.closed shouldBe true
    ExecutorCursors.cached(instance) shouldBe empty
  }

  test("a task with no shards (sent only to clean up) closes every reader its executor does not own") {
    val instance = newInstance()
    val readers = cache(instance, 0, 1)
    val result = PrefetchTask.run(_ => fail("nothing to read"), Nil,
      work(instance, Map(shard(0) -> elsewhere, shard(1) -> elsewhere)), store = new FakeSink(here))
    result.status shouldBe empty
    readers.values.map(_.closed) shouldBe Seq(true, true)
    ExecutorCursors.cached(instance) shouldBe empty
  }

  /** `count` readers released as tasks release them, `perTask` at a time; `consumer` Some for EFO readers. */
  private def released(instance: String, count: Int, perTask: Int, consumer: Option[String]): IndexedSeq[FakeReader] = {
    val readers = (0 until count).map(i => new FakeReader(shard(i), start, consumer))
    readers.grouped(perTask).foreach(ExecutorCursors.releaseAll(instance, _))
    readers
  }

  test("the cache is bounded: beyond MaxCachedSubscriptions EFO readers, those idle longest are closed") {
    val instance = newInstance()
    val extra = 3
    val readers = released(instance, ExecutorCursors.MaxCachedSubscriptions + extra, 1, Some("arn:consumer"))
    ExecutorCursors.cached(instance).size shouldBe ExecutorCursors.MaxCachedSubscriptions
    readers.take(extra).map(_.closed) shouldBe Seq.fill(extra)(true)
    readers.drop(extra).exists(_.closed) shouldBe false
    ExecutorCursors.forget(instance)
    readers.forall(_.closed) shouldBe true
  }

  test(
    "polling cursors of every shard of a 10,000-shard stream stay cached; beyond MaxCachedReaders the idle longest go") {
    val instance = newInstance()
    val tenThousand = released(instance, 10000, 5000, None)
    ExecutorCursors.cached(instance).size shouldBe 10000
    tenThousand.exists(_.closed) shouldBe false
    ExecutorCursors.forget(instance)

    val other = newInstance()
    val extra = 3
    val readers = released(other, ExecutorCursors.MaxCachedReaders + extra, 5000, None)
    ExecutorCursors.size shouldBe ExecutorCursors.MaxCachedReaders
    readers.take(extra).map(_.closed) shouldBe Seq.fill(extra)(true)
    readers.drop(extra).exists(_.closed) shouldBe false
    ExecutorCursors.forget(other)
  }
}
