// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import java.nio.file.Files

import scala.concurrent.duration._

import org.apache.spark.sql.connector.read.streaming.{Offset, ReadLimit}
import org.apache.spark.sql.streaming.Trigger
import org.scalatest.concurrent.Eventually._
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import org.apache.spark.sql.kinesis.KinesisBlockStore

import io.github.sparkkinesis.FakeKinesisApi
import io.github.sparkkinesis.LocalSpark
import io.github.sparkkinesis.client.ConnectionConfig
import io.github.sparkkinesis.client.sdk.KinesisClients
import io.github.sparkkinesis.errors.KinesisConnectorException
import io.github.sparkkinesis.offsets.{KinesisSourceOffset, ShardKey, ShardPosition}
import io.github.sparkkinesis.options.KinesisSourceOptions
import io.github.sparkkinesis.prefetch.PrefetchTask

/**
 * The polling stream over a fake Kinesis, driven as Spark drives it: initial offset, then per
 * trigger latestOffset, planInputPartitions, the partitions' reads and commit, with every
 * offset passed through its JSON as the offset log does. Prefetching runs for real: Spark jobs
 * on a local session store blocks in its block manager; the fake sits behind the connection.
 */
class KinesisMicroBatchStreamSuite extends AnyFunSuite with Matchers with LocalSpark {
  import ShardPosition._

  private val checkpoints = Files.createTempDirectory("kinesis-source-suite-")

  // Connections whose Kinesis this suite replaced by a fake in the JVM: given back at the end,
  // so later suites' queries on the same connection reach a real endpoint.
  private val faked = scala.collection.mutable.Set.empty[ConnectionConfig]

  override def afterAll(): Unit =
    try {
      faked.foreach(KinesisClients.uninstall)
      Files.walk(checkpoints).sorted(java.util.Comparator.reverseOrder()).forEach(p => Files.delete(p))
    } finally super.afterAll()

  private def shardId(i: Int) = f"shardId-$i%012d"

  private def options(extra: (String, String)*): KinesisSourceOptions =
    KinesisSourceOptions.parse(Map(
      "streamName" -> "clicks",
      "region" -> "us-east-1",
      "initialPosition" -> "trim_horizon",
      "minFetchPeriod" -> "200ms",
      "maxFetchDuration" -> "300ms",
      "shardFetchInterval" -> "1ms") ++ extra)

  private def newMetadataPath(): String =
    Files.createTempDirectory(checkpoints, "query-").resolve("sources/0").toString

  /** A query over a new source of this suite (see [[SourceQuery]]). */
  private final class Query(val api: FakeKinesisApi, opts: KinesisSourceOptions,
      metadataPath: String = newMetadataPath(), idleWaitMs: Long = KinesisMicroBatchStream.IdleWaitMs,
      handOverBytes: Long = PrefetchTask.HandOverBytes)
    extends SourceQuery(newSource(api, opts, metadataPath, idleWaitMs, handOverBytes), opts)

  private def newSource(api: FakeKinesisApi, opts: KinesisSourceOptions, metadataPath: String,
      idleWaitMs: Long = KinesisMicroBatchStream.IdleWaitMs, handOverBytes: Long = PrefetchTask.HandOverBytes) = {
    KinesisClients.install(opts.connection, api)
    faked += opts.connection
    new KinesisMicroBatchStream(opts, metadataPath, api, spark.sparkContext, idleWaitMs, handOverBytes)
  }

  private def withQuery(api: FakeKinesisApi, opts: KinesisSourceOptions = options())(body: Query => Unit): Unit = {
    val query = new Query(api, opts)
    try body(query)
    finally query.stop()
  }

  private def data(rows: Seq[Out]): Seq[String] = rows.map(_.data)

  private def logged(q: Query)(offset: Offset): KinesisSourceOffset =
    q.source.deserializeOffset(offset.json()).asInstanceOf[KinesisSourceOffset]

  test("initialOffset with trim_horizon covers every shard of every stream") {
    val api = new FakeKinesisApi().createStream("clicks", 3).createStream("orders", 2)
    withQuery(api, options("streamName" -> "clicks,orders")) { q =>
      q.committed.shards shouldBe Map(
        ShardKey("clicks", shardId(0)) -> TrimHorizon, ShardKey("clicks", shardId(1)) -> TrimHorizon,
        ShardKey("clicks", shardId(2)) -> TrimHorizon,
        ShardKey("orders", shardId(0)) -> TrimHorizon, ShardKey("orders", shardId(1)) -> TrimHorizon)
    }
  }

  test("a throttled ListShards is tried again instead of failing the query") {
    val api = new FakeKinesisApi().createStream("clicks", 2)
    api.throttleNextListShards(3)
    withQuery(api) { q =>
      q.committed.shards.keySet shouldBe Set(ShardKey("clicks", shardId(0)), ShardKey("clicks", shardId(1)))
      api.callCount("ListShards") should be >= 4
    }
  }

  test("initialOffset with latest is the time the query first started, kept across restarts") {
    val api = new FakeKinesisApi().createStream("clicks", 2)
    val metadataPath = newMetadataPath()
    val before = System.currentTimeMillis()
    val first = newSource(api, options("initialPosition" -> "latest"), metadataPath)
    val initial =
      try first.initialOffset()
      finally first.stop()
    val after = System.currentTimeMillis()
    val times = initial.asInstanceOf[KinesisSourceOffset].shards.values.toSet
    times should have size 1
    times.head match {
      case AtTimestamp(ms) => ms should (be >= before and be <= after)
      case other => fail(s"latest must become a concrete time, not $other")
    }

    Thread.sleep(20)
    // A restart before the first batch committed, with different options even: same start.
    Seq("latest", "trim_horizon").foreach { position =>
      val again = newSource(api, options("initialPosition" -> position), metadataPath)
      try again.initialOffset() shouldBe initial
      finally again.stop()
    }
  }

  test("a restart with initialPosition latest keeps the stored trim_horizon start") {
    val api = new FakeKinesisApi().createStream("clicks", 2)
    val metadataPath = newMetadataPath()
    val first = newSource(api, options(), metadataPath)
    val initial =
      try first.initialOffset()
      finally first.stop()
    api.split("clicks", shardId(0)) // Even the shards listed then are kept.
    val again = newSource(api, options("initialPosition" -> "latest"), metadataPath)
    try again.initialOffset() shouldBe initial
    finally again.stop()
    initial.asInstanceOf[KinesisSourceOffset].shards.values.toSet shouldBe Set(TrimHorizon)
  }

  test("latestOffset and planInputPartitions: one partition per shard with new data, none for idle shards") {
    val api = new FakeKinesisApi().createStream("clicks", 3)
    val a = api.putMany("clicks", shardId(0), "a", 4)
    val c = api.putMany("clicks", shardId(2), "c", 2)
    withQuery(api) { q =>
      val end = q.settledEnd()
      end.shards shouldBe Map(ShardKey("clicks", shardId(0)) -> AfterSequence(a.last),
        ShardKey("clicks", shardId(1)) -> TrimHorizon, ShardKey("clicks", shardId(2)) -> AfterSequence(c.last))
      val planned = q.partitions(q.committed, end).flatMap(_.ranges)
      planned.map(r => (r.shard, r.start, r.end.sequenceNumber)) shouldBe Seq(
        (ShardKey("clicks", shardId(0)), AtSequence(a.head), a.last), // the start names the first record
        (ShardKey("clicks", shardId(2)), AtSequence(c.head), c.last))
      all(planned.map(_.blocks)) should not be empty // read from prefetched blocks
      // Nothing new: no partitions at all.
      q.partitions(end, end) shouldBe empty
    }
  }

  test("a trigger that finds nothing new waits for the next records instead of answering nothing") {
    val api = new FakeKinesisApi().createStream("clicks", 1)
    val first = api.putMany("clicks", shardId(0), "a", 1)
    val q = new Query(api, options(), idleWaitMs = 120000L)
    try {
      val end = logged(q)(q.source.latestOffset(q.committed, ReadLimit.allAvailable()))
      end.shards shouldBe Map(ShardKey("clicks", shardId(0)) -> AfterSequence(first.last))
      q.source.commit(end)
      // Put while the next trigger is waiting: that trigger answers with them.
      val putter = new Thread(() => { Thread.sleep(300); api.putMany("clicks", shardId(0), "b", 2) })
      putter.start()
      val next = logged(q)(q.source.latestOffset(end, ReadLimit.allAvailable()))
      putter.join()
      next.shards(ShardKey("clicks", shardId(0))) should not be AfterSequence(first.last)
      data(q.read(end, next)) shouldBe Seq("b-0", "b-1")
      q.source.metrics(java.util.Optional.empty()).get("idleWaitMs").toLong should be > 0L
    } finally q.stop()
  }

  test("an idle query wakes Spark's trigger loop at most once a second") {
    val api = new FakeKinesisApi().createStream("clicks", 1)
    api.putMany("clicks", shardId(0), "a", 1)
    withQuery(api) { q =>
      data(q.runBatch()) shouldBe Seq("a-0")
      // Nothing new, trigger after trigger: each waits twice as long as the one before, up to
      // a second, so Spark's loop (progress, status) runs once a second; records reset the wait.
      val first = q.source.nextIdleWait
      val waits = (1 to 4).map { _ =>
        val planned = q.source.nextIdleWait
        q.source.latestOffset(q.committed, ReadLimit.allAvailable()) should be theSameInstanceAs q.committed
        planned
      }
      waits shouldBe Seq(first, first * 2, first * 4, first * 8).map(_ min KinesisMicroBatchStream.LongestIdleWaitMs)
      waits.last shouldBe KinesisMicroBatchStream.LongestIdleWaitMs
      api.putMany("clicks", shardId(0), "b", 1)
      data(q.runBatch()) shouldBe Seq("b-0")
      q.source.nextIdleWait shouldBe first
    }
  }

  test("under a processing-time trigger an idle trigger answers at once: no trigger outlasts its interval") {
    // A trigger longer than its interval makes Spark warn, at every idle trigger, that the query
    // falls behind. Spark spaces these triggers itself; only the default trigger waits for records.
    val settings = Map("streamName" -> "idle", "region" -> "us-east-1", "initialPosition" -> "trim_horizon",
      "minFetchPeriod" -> "200ms", "maxFetchDuration" -> "300ms")
    val api = new FakeKinesisApi().createStream("idle", 2)
    api.putMany("idle", shardId(0), "a", 3)
    val connection = KinesisSourceOptions.parse(settings).connection
    KinesisClients.install(connection, api)
    faked += connection
    def idleWaits(trigger: Trigger): Seq[Long] = {
      val query = spark.readStream.format("kinesis").options(settings).load().writeStream.format("noop")
        .trigger(trigger).option("checkpointLocation", newMetadataPath()).start()
      def idle = query.recentProgress.dropWhile(_.numInputRows == 0).filter(_.numInputRows == 0)
      try {
        eventually(timeout(60.seconds), interval(50.millis))(idle.length should be >= 3)
        query.recentProgress.map(_.numInputRows).sum shouldBe 3
        idle.map(_.sources.head.metrics.get("idleWaitMs").toLong).toSeq
      } finally query.stop()
    }
    val key = "spark.sql.streaming.noDataProgressEventInterval"
    spark.conf.set(key, "10ms") // a progress for every idle trigger, not one every 10 seconds
    try {
      idleWaits(Trigger.ProcessingTime(400)).distinct shouldBe Seq(0L)
      all(idleWaits(Trigger.ProcessingTime(0))) should be > 0L
    } finally spark.conf.unset(key)
  }

  test("a trigger that finds nothing new answers its start itself, and new records move the end again") {
    val api = new FakeKinesisApi().createStream("clicks", 2)
    api.putMany("clicks", shardId(0), "a", 2)
    withQuery(api) { q =>
      data(q.runBatch()) shouldBe Seq("a-0", "a-1")
      val start = q.committed
      // The same offset, not an equal copy: Spark then writes and reads no JSON of every shard again.
      q.source.latestOffset(start, ReadLimit.allAvailable()) should be theSameInstanceAs start
      q.source.latestOffset(start, ReadLimit.allAvailable()) should be theSameInstanceAs start
      q.source.deserializeOffset(start.json()) should be theSameInstanceAs start
      // JSON of another offset is read, not taken for the one kept.
      val other = KinesisSourceOffset(start.shards.map { case (k, _) => k -> TrimHorizon }, start.streamsCreatedAt)
      q.source.deserializeOffset(other.json()) shouldBe other
      api.putMany("clicks", shardId(1), "b", 2)
      data(q.runBatch()) shouldBe Seq("b-0", "b-1")
    }
  }

  test("small blocks are coalesced into few tasks, which read every record back in shard order") {
    val api = new FakeKinesisApi().createStream("clicks", 6)
    val put = (0 until 6).map(i => shardId(i) -> api.putMany("clicks", shardId(i), s"s$i", 3 + i)).toMap
    def perShard(rows: Seq[Out]): Map[String, Seq[String]] = rows.groupBy(_.shardId).map { case (shard, out) =>
      shard -> out.map(_.sequenceNumber)
    }

    // By default (blocks far below coalesceThresholdBlockSize) every shard of the one local executor shares a task.
    withQuery(api) { q =>
      val end = q.settledEnd()
      val tasks = q.partitions(q.committed, end)
      tasks.size shouldBe 1
      tasks.head.ranges.map(_.shard.shardId).sorted shouldBe (0 until 6).map(shardId)
      perShard(q.read(q.committed, end)) shouldBe put
    }
    // A bin smaller than any range: one task per shard, the same records.
    withQuery(api, options("coalesceBinSize" -> "1")) { q =>
      val end = q.settledEnd()
      q.partitions(q.committed, end).map(_.ranges.size) shouldBe Seq.fill(6)(1)
      perShard(q.read(q.committed, end)) shouldBe put
    }
  }

  test("a batch run again after a restart has the same tasks, each with the same rows in the same order") {
    val api = new FakeKinesisApi().createStream("clicks", 4)
    (0 until 4).foreach(i => api.putMany("clicks", shardId(i), s"s$i", 5 + 3 * i))
    val metadataPath = newMetadataPath()
    val first = new Query(api, options(), metadataPath)
    val (start, end, tasks) =
      try {
        val end = first.settledEnd()
        (first.committed, end, first.readTasks(first.committed, end))
      } finally first.stop()
    tasks should have size 1 // small blocks of one executor: packed into one task
    tasks.flatten should have size (0 until 4).map(i => 5 + 3 * i).sum
    // Started again from the checkpoint: the offset log's end, nothing prefetched, a new stream.
    val again = new Query(api, options(), metadataPath)
    try {
      def logged(offset: KinesisSourceOffset) =
        again.source.deserializeOffset(offset.json()).asInstanceOf[KinesisSourceOffset]
      again.readTasks(logged(start), logged(end)) shouldBe tasks
    } finally again.stop()
  }

  test("a first batch from trim_horizon run again after retention deleted some of its records is a data loss") {
    Seq(true, false).foreach { failOnDataLoss =>
      val api = new FakeKinesisApi().createStream("clicks", 2)
      api.putMany("clicks", shardId(0), "a", 6)
      api.putMany("clicks", shardId(1), "b", 3)
      val metadataPath = newMetadataPath()
      val opts = options("failOnDataLoss" -> failOnDataLoss.toString)
      val first = new Query(api, opts, metadataPath)
      val (start, end) =
        try { (first.committed, first.settledEnd()) }
        finally first.stop()
      // Stopped before its first batch committed; retention then deletes two records it had not read.
      api.trim("clicks", shardId(0), 2)
      val again = new Query(api, opts, metadataPath)
      try {
        again.committed shouldBe start // the stored start, which names each shard's first record
        if (failOnDataLoss) {
          val e = intercept[Exception](again.read(again.logged(start), again.logged(end)))
          Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null).map(_.getMessage).mkString("\n") should
            include("KINESIS_DATA_LOSS")
        } else {
          data(again.read(again.logged(start), again.logged(end))) should contain theSameElementsAs
            (2 until 6).map(i => s"a-$i") ++ (0 until 3).map(i => s"b-$i")
        }
      } finally again.stop()
    }
  }

  test("a throttled look at a shard's first record when a query first starts is tried again") {
    val api = new FakeKinesisApi().createStream("clicks", 1)
    val seqs = api.putMany("clicks", shardId(0), "a", 3)
    api.throttleNextGetRecords(2)
    withQuery(api)(_.committed.shards shouldBe Map(ShardKey("clicks", shardId(0)) -> AtSequence(seqs.head)))
  }

  test("rows carry the record and where it came from") {
    val api = new FakeKinesisApi().createStream("clicks", 1)
    val seqs = api.put("clicks", shardId(0), "hello")
    withQuery(api) { q =>
      val record = api.records("clicks", shardId(0)).head
      q.runBatch() shouldBe Seq(Out("clicks", shardId(0), seqs.head, "hello", "key-hello",
          record.approximateArrivalMillis * 1000L))
    }
  }

  test("every record exactly once across consecutive batches, and a re-run batch reads the same") {
    val api = new FakeKinesisApi().createStream("clicks", 3)
    val firstPut = api.putMany("clicks", shardId(0), "a", 5) ++ api.putMany("clicks", shardId(1), "b", 3)
    withQuery(api) { q =>
      val start1 = q.committed
      data(q.runBatch()) should contain theSameElementsAs (0 until 5).map(i => s"a-$i") ++ (0 until 3).map(i => s"b-$i")
      val end1 = q.committed

      api.putMany("clicks", shardId(0), "a2", 2)
      api.putMany("clicks", shardId(2), "c", 4)
      val second = q.runBatch()
      data(second) should contain theSameElementsAs (0 until 2).map(i => s"a2-$i") ++ (0 until 4).map(i => s"c-$i")
      second.map(_.shardId).toSet shouldBe Set(shardId(0), shardId(2))

      data(q.runBatch()) shouldBe empty // idle: nothing read twice
      q.committed shouldBe q.source.deserializeOffset(q.committed.json())

      val all = q.batches.flatten
      all.map(_.sequenceNumber).distinct should have size all.size
      all should have size (firstPut.size + 6)
      // Per shard, in sequence order.
      all.groupBy(_.shardId).values.foreach { rows =>
        rows.map(r => BigInt(r.sequenceNumber)) shouldBe sorted
      }
      // A failed first batch re-run from the offset log reads exactly what it read the first time.
      q.read(start1, end1) shouldBe q.batches.head
    }
  }

  test("after a split, the children are read only once the parent is read to its end") {
    val api = new FakeKinesisApi().createStream("clicks", 1)
    val parent = ShardKey("clicks", shardId(0))
    api.putMany("clicks", shardId(0), "p", 5)
    // The first listing is slow, as one that opens the connection is: it must not hold the children back.
    api.slowNextListing(2000)
    withQuery(api) { q =>
      data(q.runBatch()) shouldBe (0 until 5).map(i => s"p-$i")

      val tail = api.putMany("clicks", shardId(0), "tail", 2)
      val (left, right) = api.split("clicks", shardId(0))
      val children = Set(ShardKey("clicks", left), ShardKey("clicks", right))
      api.putMany("clicks", left, "l", 3)
      api.putMany("clicks", right, "r", 2)

      // The parent's tail is read; the children are tracked but wait for it.
      data(q.runBatch()) shouldBe Seq("tail-0", "tail-1")
      q.committed.shards(parent) shouldBe ShardEnd(Some(tail.last))
      children.foreach(child => q.committed.shards(child) shouldBe TrimHorizon)

      // Now the children are read from their beginning.
      data(q.runBatch()) should contain theSameElementsAs Seq("l-0", "l-1", "l-2", "r-0", "r-1")
      q.partitions(q.offsets(2), q.offsets(3)).flatMap(_.ranges).map(r => r.shard -> r.start).toSet shouldBe
        children.map(_ -> TrimHorizon)
      data(q.runBatch()) shouldBe empty
      // Read to its end before, with both children tracked: the parent leaves the offset,
      // and is not taken for a new shard although the fake still lists it.
      q.committed.shards.keySet shouldBe children
      data(q.runBatch()) shouldBe empty
      q.committed.shards.keySet shouldBe children

      val all = q.batches.flatten
      all.map(_.sequenceNumber).distinct should have size 12
      all should have size 12
    }
  }

  test("an idle query does not list the shards every trigger, yet finds a split's children once the parent ends") {
    val api = new FakeKinesisApi().createStream("clicks", 1)
    api.putMany("clicks", shardId(0), "p", 2)
    // shardFetchInterval is 1ms here: before, every trigger listed the shards.
    withQuery(api) { q =>
      data(q.runBatch()) shouldBe Seq("p-0", "p-1")
      val listed = api.callCount("ListShards")
      (1 to 3).foreach(_ => data(q.runBatch()) shouldBe empty) // each of several triggers
      api.callCount("ListShards") shouldBe listed

      val (left, right) = api.split("clicks", shardId(0))
      api.putMany("clicks", left, "l", 2)
      api.putMany("clicks", right, "r", 1)
      val read = Iterator.continually(data(q.runBatch())).take(4).flatten.toSeq
      read should contain theSameElementsAs Seq("l-0", "l-1", "r-0")
      q.committed.shards.keySet shouldBe Set(left, right).map(ShardKey("clicks", _))

      // The parent left the offset: the reshard is over, and so is listing every trigger.
      val afterReshard = api.callCount("ListShards")
      (1 to 3).foreach(_ => data(q.runBatch()) shouldBe empty)
      api.callCount("ListShards") shouldBe afterReshard
    }
  }

  test("after a second reshard, shards read long ago are not taken for new ones") {
    val api = new FakeKinesisApi().createStream("clicks", 1)
    api.putMany("clicks", shardId(0), "p", 3)
    withQuery(api) { q =>
      q.runBatch()
      val (left, right) = api.split("clicks", shardId(0))
      api.putMany("clicks", left, "l", 2)
      q.runBatch(); q.runBatch(); q.runBatch()
      val (leftA, leftB) = api.split("clicks", left) // the first parent's children end in turn
      api.putMany("clicks", leftA, "la", 2)
      (1 to 5).foreach(_ => q.runBatch())
      q.committed.shards.keySet shouldBe Set(right, leftA, leftB).map(ShardKey("clicks", _))
      data(q.batches.flatten.toSeq) should contain theSameElementsAs
        Seq("p-0", "p-1", "p-2", "l-0", "l-1", "la-0", "la-1")
    }
  }

  test("the child of a merge is read after both parents are read to their ends") {
    val api = new FakeKinesisApi().createStream("clicks", 2)
    api.putMany("clicks", shardId(0), "x", 2)
    withQuery(api) { q =>
      data(q.runBatch()) shouldBe Seq("x-0", "x-1")

      api.putMany("clicks", shardId(1), "y", 3)
      val child = api.merge("clicks", shardId(0), shardId(1))
      api.putMany("clicks", child, "z", 2)

      data(q.runBatch()) shouldBe Seq("y-0", "y-1", "y-2")
      data(q.runBatch()) shouldBe Seq("z-0", "z-1")
      q.batches.flatten should have size 7
    }
  }

  test("latestOffset without a start is refused") {
    val api = new FakeKinesisApi().createStream("clicks", 1)
    withQuery(api) { q =>
      an[UnsupportedOperationException] should be thrownBy q.source.latestOffset()
    }
  }

  test("records whose blocks are gone are read from Kinesis again, the same ones") {
    val api = new FakeKinesisApi().createStream("clicks", 2)
    api.putMany("clicks", shardId(0), "a", 6)
    api.putMany("clicks", shardId(1), "b", 4)
    withQuery(api) { q =>
      val end = q.settledEnd()
      val fromBlocks = q.read(q.committed, end)
      val blocks = q.partitions(q.committed, end).flatMap(_.ranges).flatMap(_.blocks)
      blocks should not be empty
      val callsBefore = api.callCount("GetRecords")
      KinesisBlockStore.remove(blocks.map(_.name)) // as if the executor holding them died
      val deadline = System.currentTimeMillis() + 10000 // removal reaches the executors asynchronously
      while (blocks.exists(b => KinesisBlockStore.get(b.name).isDefined)) {
        assert(System.currentTimeMillis() < deadline, "the blocks were never removed")
        Thread.sleep(20)
      }
      val refetched = q.read(q.committed, end)
      refetched shouldBe fromBlocks
      data(refetched) should contain theSameElementsAs (0 until 6).map(i => s"a-$i") ++ (0 until 4).map(i => s"b-$i")
      api.callCount("GetRecords") should be > callsBefore
    }
  }

  test("Trigger.AvailableNow reads what arrived before it started, then reports no new data") {
    val api = new FakeKinesisApi().arriveAtWallClock().createStream("clicks", 2)
    api.putMany("clicks", shardId(0), "old", 3)
    withQuery(api) { q =>
      Thread.sleep(5)
      q.source.prepareForTriggerAvailableNow()
      Thread.sleep(5)
      api.putMany("clicks", shardId(1), "new", 2) // arrives after the start: not in this run
      val end = logged(q)(q.source.latestOffset(q.committed, ReadLimit.allAvailable()))
      data(q.read(q.committed, end)) shouldBe Seq("old-0", "old-1", "old-2")
      q.source.commit(end)
      val next = logged(q)(q.source.latestOffset(end, ReadLimit.allAvailable()))
      next shouldBe end // no new data: the AvailableNow run ends
    }
  }

  test("Trigger.AvailableNow reads every shard up to its start although later records of another filled the buffer") {
    val api = new FakeKinesisApi().arriveAtWallClock().createStream("clicks", 2)
    api.putMany("clicks", shardId(1), "old", 1)
    // Shard 1 answers slowly: the first round ends before it reads its record, while shard 0's
    // records, all after the start, fill fetchBufferSize.
    api.emptyPagesOn(shardId(1), 3)
    withQuery(api, options("fetchBufferSize" -> "100b")) { q =>
      Thread.sleep(5)
      q.source.prepareForTriggerAvailableNow()
      Thread.sleep(5)
      api.putMany("clicks", shardId(0), "new", 20)
      val latest = scala.concurrent.Future(q.source.latestOffset(q.committed, ReadLimit.allAvailable()))(
        scala.concurrent.ExecutionContext.global)
      val end = logged(q)(scala.concurrent.Await.result(latest, scala.concurrent.duration.Duration(30, "s")))
      data(q.read(q.committed, end)) shouldBe Seq("old-0")
    }
  }

  test("Trigger.AvailableNow over a backlog: a batch takes what maxFetchDuration prefetches, not one round") {
    val api = new FakeKinesisApi().createStream("clicks", 1)
    api.putMany("clicks", shardId(0), "r", 100)
    // Each round stops at its first fetch (20 records hold more than 100 bytes), as a round of
    // many busy shards stops at handOverBytes: one batch per round would hold 20 records.
    val opts = options("maxFetchDuration" -> "8s", "maxRecordsPerFetch" -> "20")
    val q = new Query(api, opts, handOverBytes = 100)
    try {
      q.source.prepareForTriggerAvailableNow()
      val ends =
        Iterator.iterate((q.committed, logged(q)(q.source.latestOffset(q.committed, ReadLimit.allAvailable())))) {
          case (_, end) => q.source.commit(end); (end, logged(q)(q.source.latestOffset(end, ReadLimit.allAvailable())))
        }.takeWhile { case (from, end) => end != from }.toList
      val batches = ends.map { case (from, end) => data(q.read(from, end)) }
      batches.flatten shouldBe (0 until 100).map(i => s"r-$i")
      batches.head.size should be > 20
    } finally q.stop()
  }

  test("prefetching stops while fetchBufferSize is full, and resumes after a commit") {
    val api = new FakeKinesisApi().createStream("clicks", 1)
    api.putMany("clicks", shardId(0), "x", 50)
    withQuery(api, options("fetchBufferSize" -> "100b", "maxRecordsPerFetch" -> "5")) { q =>
      val first = q.settledEnd()
      val firstRows = q.read(q.committed, first)
      firstRows.size should (be > 0 and be < 50)
      q.source.metrics(java.util.Optional.empty()).get("prefetchedBytes").toLong should be >= 100L
      q.source.commit(first)
      q.committed = first
      val rest = Iterator.continually(q.runBatch()).takeWhile(_.nonEmpty).flatten.toSeq
      data(firstRows ++ rest) shouldBe (0 until 50).map(i => s"x-$i")
    }
  }

  test("metrics report how far behind the tip the shards are and what is buffered") {
    val api = new FakeKinesisApi().createStream("clicks", 2)
    api.putMany("clicks", shardId(0), "m", 3)
    withQuery(api) { q =>
      q.settledEnd()
      val metrics = q.source.metrics(java.util.Optional.empty())
      metrics.keySet should contain allOf ("avgMsBehindLatest", "maxMsBehindLatest", "minMsBehindLatest",
      "prefetchedBytes", "prefetchedRecords", "fetchedRecords", "throttleEvents")
      metrics.get("fetchedRecords") shouldBe "3"
      metrics.get("maxMsBehindLatest") shouldBe "0"
    }
  }

  test("a checkpoint of a stream that was deleted and created again is refused") {
    val api = new FakeKinesisApi().createStream("clicks", 1)
    api.putMany("clicks", shardId(0), "a", 2)
    val metadataPath = newMetadataPath()
    val q = new Query(api, options(), metadataPath)
    val end =
      try { q.runBatch(); q.committed }
      finally q.stop()
    api.recreate("clicks", createdAtMillis = 1700000000000L)
    val again = newSource(api, options(), metadataPath)
    try {
      val error = intercept[KinesisConnectorException](again.latestOffset(end, ReadLimit.allAvailable()))
      error.getCondition shouldBe "KINESIS_STREAM_RECREATED"
      error.getMessage should include("new checkpoint")
    } finally again.stop()
  }

  test("initialPosition as per-shard positions starts at the record named") {
    val api = new FakeKinesisApi().createStream("clicks", 2)
    val a = api.putMany("clicks", shardId(0), "a", 5)
    api.putMany("clicks", shardId(1), "b", 2)
    val start = s"""{"version":1,"shards":{"clicks":{"${shardId(0)}":{"type":"at","seq":"${a(3)}"}}}}"""
    withQuery(api, options("initialPosition" -> start)) { q =>
      data(q.runBatch()) should contain theSameElementsAs Seq("a-3", "a-4", "b-0", "b-1")
    }
  }
}
