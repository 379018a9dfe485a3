// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import java.nio.charset.StandardCharsets.UTF_8

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.{FakeClock, FakeKinesisPutApi}
import io.github.sparkkinesis.FakeKinesisPutApi.{entry, text}
import io.github.sparkkinesis.client.PutEntry
import io.github.sparkkinesis.kpl.{Deaggregator, HashKeyRange, KplEnvelope, OutOfRangePolicy}
import io.github.sparkkinesis.options.PutSettings

/**
 * `aggregation` = `kpl`: rows packed per target shard into KPL aggregates, checked by reading
 * back what the fake Kinesis stored as this connector (and the KCL) read it: aggregates split,
 * rows outside the range of the shard they were stored on dropped.
 */
class KplSinkAggregationSuite extends AnyFunSuite with Matchers {

  private val settings = PutSettings(maxRecordsPerPut = 500, maxBytesPerPut = 5L * 1024 * 1024,
    maxInFlightPuts = 4, maxPutRetries = 20, retryBackoffMs = 10, maxRetryBackoffMs = 100, aggregate = true)

  private final class Writer(val api: FakeKinesisPutApi, s: PutSettings = settings) {
    val counters = new KinesisSinkCounters
    val batcher = new PutRecordsBatcher(api, s, "fake", counters, new FakeClock(), () => 0.5)

    def write(data: Seq[PutEntry]): Unit = data.foreach(batcher.add("s", _))

    def finish(): Unit =
      try batcher.flush()
      finally batcher.close()
  }

  /** Record n of key k is "k:n"; rows interleave the keys. */
  private def rows(keys: Int, perKey: Int, from: Int = 0): Seq[PutEntry] =
    for (n <- from until from + perKey; k <- 0 until keys) yield entry(s"key$k:$n", s"key$k")

  /** The user records a reader gets, by key, in the order it reads them. */
  private def readByKey(api: FakeKinesisPutApi,
      policy: OutOfRangePolicy = OutOfRangePolicy.Keep): Map[String, Seq[Int]] =
    api.userRecords("s", policy).map(_._2).groupBy(_.partitionKey).map { case (k, rs) =>
      k -> rs.map(r => text(r.data).split(':')(1).toInt)
    }

  private def aggregates(api: FakeKinesisPutApi): Seq[PutEntry] =
    api.records("s").filter(e => KplEnvelope.hasMagic(e.data))

  test("rows bound for one shard share aggregates; a reader gets every row once, in order, with its own key") {
    val api = new FakeKinesisPutApi().shards("s", 4)
    val w = new Writer(api)
    w.write(rows(keys = 50, perKey = 40))
    w.finish()
    readByKey(api) shouldBe (0 until 50).map(k => s"key$k" -> (0 until 40)).toMap
    // Four shards in four lanes, the rows small: one aggregate per shard, sent at the flush.
    api.records("s").size shouldBe 4
    aggregates(api).size shouldBe 4
    api.listShardsCalls shouldBe 1
    w.counters.recordsWritten.get shouldBe 2000
    w.counters.kinesisRecordsWritten.get shouldBe api.records("s").size
    w.counters.bytesWritten.get shouldBe rows(50, 40).map(_.size.toLong).sum
  }

  test("each aggregate goes under its first row's partition key and an explicit hash key inside its shard") {
    val api = new FakeKinesisPutApi().shards("s", 2)
    val w = new Writer(api)
    w.write(rows(keys = 10, perKey = 5))
    w.finish()
    val ranges = api.listShards("s", 100).map(s => s.shardId -> s.hashKeyRange.get).toMap
    api.userRecords("s").groupBy(_._1).foreach { case (shard, records) =>
      records.foreach(r => ranges(shard).contains(HashKeyRange.hashKeyOf(r._2.partitionKey, None)) shouldBe true)
    }
    aggregates(api) should have size 2
    aggregates(api).foreach { a =>
      Deaggregator(a.partitionKey, a.data, None).records.head.partitionKey shouldBe a.partitionKey
      ranges.values.map(_.start.toString).toSeq should contain(a.explicitHashKey.get)
    }
  }

  test("aggregates stay within 1 MiB with their partition key, and calls within maxBytesPerPut") {
    val api = new FakeKinesisPutApi()
    val w = new Writer(api, settings.copy(maxBytesPerPut = 3L * 1024 * 1024))
    val payload = "x" * (100 * 1024)
    w.write((0 until 60).map(i => entry(s"$i:$payload", s"k${i % 3}")))
    w.finish()
    all(api.records("s").map(_.size)) should be <= 1024 * 1024 // the fake also refuses larger ones
    all(api.calls.map(_.bytes)) should be <= 3L * 1024 * 1024
    api.records("s").size should be < 10
    api.userRecords("s").map(r => text(r._2.data).takeWhile(_ != ':').toInt) shouldBe (0 until 60)
  }

  test("maxBytesPerPut below 1 MiB bounds each aggregate too") {
    val api = new FakeKinesisPutApi()
    val w = new Writer(api, settings.copy(maxBytesPerPut = 4096))
    w.write(rows(keys = 3, perKey = 300))
    w.finish()
    all(api.calls.map(_.bytes)) should be <= 4096L
    readByKey(api).values.foreach(_ shouldBe (0 until 300))
  }

  test("a lone row, and a row too large for an aggregate, go as plain records") {
    val api = new FakeKinesisPutApi()
    val w = new Writer(api)
    val big = "b" * (1024 * 1024 - 10) // data and key just under 1 MiB: no room for the frame
    w.write(Seq(entry("small:0", "a"), entry(big, "z"), entry("small:1", "a")))
    w.finish()
    api.records("s").map(e => text(e.data)) should contain(big)
    api.userRecords("s").map(r => text(r._2.data)) should contain theSameElementsAs Seq("small:0", big, "small:1")

    val lone = new FakeKinesisPutApi()
    val one = new Writer(lone)
    one.write(Seq(entry("only", "k")))
    one.finish()
    lone.records("s").map(e => (e.partitionKey, text(e.data))) shouldBe Seq("k" -> "only")
  }

  test("a row over 1 MiB, on a stream that takes it, goes alone; the rows around it still share 1 MiB aggregates") {
    val api = new FakeKinesisPutApi().recordLimit("s", 10L * 1024 * 1024)
    val w = new Writer(api)
    val big = "B" * (10 * 1024 * 1024 - 4) // with its key "key1", 10 MiB
    w.write(rows(3, 2) ++ Seq(entry(big, "key1")) ++ rows(3, 2, from = 2))
    w.finish()
    api.records("s").map(e => text(e.data)) should contain(big)
    aggregates(api) should not be empty
    aggregates(api).foreach(_.size should be <= 1024 * 1024)
    val read = api.userRecords("s").map(_._2)
    read.filter(_.partitionKey == "key1").map(r => text(r.data)) shouldBe
      Seq("key1:0", "key1:1", big, "key1:2", "key1:3")
    read.size shouldBe 13
  }

  test("explicit hash keys choose the shard and stay with their rows") {
    val api = new FakeKinesisPutApi().shards("s", 2)
    val w = new Writer(api)
    val top = HashKeyRange.MaxHashKey.toString
    w.write((0 until 6).map(i => PutEntry(s"k$i", s"v$i".getBytes(UTF_8), Some(if (i % 2 == 0) "0" else top), 4)))
    w.finish()
    val read = api.userRecords("s").map { case (shard, r) => text(r.data) -> (shard, r.explicitHashKey) }.toMap
    (0 until 6).foreach { i =>
      read(s"v$i") shouldBe (if (i % 2 == 0) (FakeKinesisPutApi.shardId(0), Some("0"))
                             else (FakeKinesisPutApi.shardId(1), Some(top)))
    }
    api.records("s").size shouldBe 2
  }

  test("throttled and failing aggregates are sent again before their shard's later rows") {
    val api = new FakeKinesisPutApi().shards("s", 3)
    val random = new Random(3)
    api.refuse((call, _) =>
      if (call <= 60 && random.nextDouble() < 0.4) Some("ProvisionedThroughputExceededException") else None)
    val w = new Writer(api, settings.copy(maxBytesPerPut = 2048))
    w.write(rows(keys = 30, perKey = 50))
    w.finish()
    readByKey(api) shouldBe (0 until 30).map(k => s"key$k" -> (0 until 50)).toMap
    w.counters.putRetries.get should be > 0L
    w.counters.recordsWritten.get shouldBe 1500
  }

  test("after a reshard, rows of aggregates that landed on a shard not owning them are sent again, once, in order") {
    val api = new FakeKinesisPutApi().shards("s", 2)
    val w = new Writer(api, settings.copy(maxBytesPerPut = 2048))
    w.write(rows(keys = 40, perKey = 1)) // The writer lists the shards with the first row.
    api.split("s", FakeKinesisPutApi.shardId(0)) // Then shard 0 splits: its map is stale.
    w.write(rows(keys = 40, perKey = 30, from = 1))
    w.finish()
    // Read as this connector reads by default (the aggregates are marked as sent again), and as
    // the KCL reads (every row outside the shard dropped): each row once, in order.
    readByKey(api) shouldBe (0 until 40).map(k => s"key$k" -> (0 until 31)).toMap
    readByKey(api, OutOfRangePolicy.Drop) shouldBe readByKey(api)
    api.listShardsCalls should be >= 2
    w.counters.recordsWritten.get shouldBe 40 * 31
    // Some rows did land where readers drop them (so the resend was needed): stored more than once.
    api.records("s").map(e => Deaggregator(e.partitionKey, e.data, None).records.size).sum should be > 40 * 31
  }

  test("one aggregate per shard in a call keeps the order; without orderPerKey a call takes several") {
    val payload = "p" * (30 * 1024)
    val data = (0 until 200).map(i => entry(s"$i:$payload", s"k${i % 7}"))
    val ordered = new FakeKinesisPutApi()
    val w = new Writer(ordered)
    w.write(data)
    w.finish()
    ordered.calls.map(_.records).distinct shouldBe Seq(1)

    val unordered = new FakeKinesisPutApi()
    val u = new Writer(unordered, settings.copy(orderPerKey = false))
    u.write(data)
    u.finish()
    unordered.calls.map(_.records).max should be > 1
    unordered.userRecords("s").size shouldBe 200
  }
}
