// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.polling

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.{FakeClock, FakeKinesisApi}
import io.github.sparkkinesis.client.KinesisRecord
import io.github.sparkkinesis.kpl.{HashKeyRange, KplTestData, OutOfRangePolicy, RangeCheck}
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.options.FetchSettings

/** Reading KPL aggregates with GetRecords: user records, exact positions inside aggregates, repeatable re-reads. */
class AggregatedReadSuite extends AnyFunSuite with Matchers {
  import ShardPosition._

  private val stream = "kpl"
  private val shardId = "shardId-000000000000"
  private val shard = ShardKey(stream, shardId)

  private def settings(perFetch: Int) = FetchSettings(maxRecordsPerFetch = perFetch, maxFetchRateMBps = 2.0,
    minFetchPeriodMs = 200, maxFetchDurationMs = 10000)

  /** A plain record, an aggregate of 5, a plain record, an aggregate of 3. */
  private final class Fixture {
    val api = new FakeKinesisApi().createStream(stream, 1)
    val plain0: String = api.put(stream, shardId, "p0").head
    val agg1: String =
      api.putRecord(stream, shardId, "outer", KplTestData.aggregate((0 until 5).map(i => s"k$i" -> s"a$i"): _*))
    val plain2: String = api.put(stream, shardId, "p2").head
    val agg3: String =
      api.putRecord(stream, shardId, "outer", KplTestData.aggregate((0 until 3).map(i => s"k$i" -> s"b$i"): _*))
    val clock = new FakeClock
    val all: Seq[String] = Seq("p0") ++ (0 until 5).map(i => s"a$i") ++ Seq("p2") ++ (0 until 3).map(i => s"b$i")

    def cursor(start: ShardPosition, perFetch: Int = 100) =
      new ShardCursor(api, shard, start, settings(perFetch), clock)

    def readAll(start: ShardPosition, perFetch: Int): (Seq[KinesisRecord], Seq[ShardPosition]) = {
      val c = cursor(start, perFetch)
      val records = Seq.newBuilder[KinesisRecord]
      val positions = Seq.newBuilder[ShardPosition]
      var rounds = 0
      while (!c.atTip && rounds < 50) {
        records ++= c.fetch().records
        positions += c.position
        rounds += 1
      }
      (records.result(), positions.result())
    }
  }

  private def text(r: KinesisRecord) = KplTestData.text(r.data)

  test("every user record once, in order, with its own partition key and sub-sequence number") {
    val f = new Fixture
    val (records, _) = f.readAll(TrimHorizon, 100)
    records.map(text) shouldBe f.all
    records.map(r => (r.partitionKey, r.sequenceNumber, r.subSequenceNumber)).slice(1, 4) shouldBe
      Seq(("k0", f.agg1, 0L), ("k1", f.agg1, 1L), ("k2", f.agg1, 2L))
    records.head.subSequenceNumber shouldBe 0L
    records.head.partitionKey shouldBe "key-p0"
  }

  test("a fetch hands out at most maxRecordsPerFetch user records; the position between names the sub-sequence") {
    val f = new Fixture
    val (records, positions) = f.readAll(TrimHorizon, 2)
    records.map(text) shouldBe f.all
    positions should contain(AfterSequence(f.agg1, Some(2L)))
    // After an aggregate's last user record, the position names the whole Kinesis record.
    positions should contain(AfterSequence(f.agg1))
    positions.last shouldBe AfterSequence(f.agg3)
  }

  test("a cursor started inside an aggregate skips the user records before its start") {
    val f = new Fixture
    val (records, _) = f.readAll(AfterSequence(f.agg1, Some(2L)), 100)
    records.map(text) shouldBe Seq("a3", "a4", "p2", "b0", "b1", "b2")
  }

  test("every position a reader stops at resumes to exactly the rest: nothing lost, nothing repeated") {
    val f = new Fixture
    val (_, positions) = f.readAll(TrimHorizon, 1)
    positions.zipWithIndex.foreach { case (p, i) =>
      f.readAll(p, 3)._1.map(text) shouldBe f.all.drop(i + 1)
    }
  }

  test("a range reader yields the records between two positions inside aggregates, the same every time") {
    val f = new Fixture
    def range(from: ShardPosition, to: AfterSequence) =
      new ShardRangeReader(f.api, shard, from, to, settings(2), f.clock).map(text).toList
    range(AfterSequence(f.agg1, Some(1L)), AfterSequence(f.agg3, Some(0L))) shouldBe Seq("a2", "a3", "a4", "p2", "b0")
    range(AfterSequence(f.agg1, Some(1L)), AfterSequence(f.agg3, Some(0L))) shouldBe Seq("a2", "a3", "a4", "p2", "b0")
    range(TrimHorizon, AfterSequence(f.agg1, Some(0L))) shouldBe Seq("p0", "a0")
    range(AfterSequence(f.agg1, Some(3L)), AfterSequence(f.agg1)) shouldBe Seq("a4")
  }

  test("with outOfRangeUserRecords drop, user records outside the shard's range are dropped on every read, counted") {
    val api = new FakeKinesisApi().createStream(stream, 1)
    val lowHalf = Some(RangeCheck(HashKeyRange(BigInt(0), HashKeyRange.MaxHashKey / 2), Nil, OutOfRangePolicy.Drop))
    val high = HashKeyRange.MaxHashKey.toString
    val agg = api.putRecord(stream, shardId, "outer",
      KplTestData.aggregateWithHashKeys(
        ("a", Some("1"), "in-0"), ("b", Some(high), "out-1"), ("c", Some("2"), "in-2"), ("d", Some(high), "out-3")))
    val cursor = new ShardCursor(api, shard, TrimHorizon, settings(100), new FakeClock, lowHalf)
    val batch = cursor.fetch()
    batch.records.map(r => (text(r), r.subSequenceNumber)) shouldBe Seq(("in-0", 0L), ("in-2", 2L))
    batch.kpl.outOfRangeRecords shouldBe 2
    batch.kpl.droppedRecords shouldBe 2
    // The last user record kept ends the Kinesis record: the position is after all of it.
    cursor.position shouldBe AfterSequence(agg)
    new ShardRangeReader(api, shard, TrimHorizon, AfterSequence(agg), settings(1), new FakeClock, lowHalf)
      .map(text).toList shouldBe Seq("in-0", "in-2")
  }

  test("a corrupt aggregate is one ordinary record, counted") {
    val api = new FakeKinesisApi().createStream(stream, 1)
    val data = KplTestData.aggregate("a" -> "1", "b" -> "2")
    data(data.length - 1) = (data.last ^ 1).toByte
    api.putRecord(stream, shardId, "outer", data)
    val batch = new ShardCursor(api, shard, TrimHorizon, settings(100), new FakeClock).fetch()
    batch.records.map(r => (r.partitionKey, r.data.toSeq, r.subSequenceNumber)) shouldBe Seq(("outer", data.toSeq, 0L))
    batch.kpl.corruptAggregates shouldBe 1
    batch.kpl.firstCorruption.get should include("MD5")
  }
}
