// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.polling

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.{FakeClock, FakeKinesisApi}
import io.github.sparkkinesis.errors.KinesisConnectorException
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.options.FetchSettings

/** failOnDataLoss: a reader continuing after a record retention deleted, with records lost between. */
class DataLossSuite extends AnyFunSuite with Matchers {
  import ShardPosition._

  private val stream = "trimmed"
  private val shardId = "shardId-000000000000"
  private val shard = ShardKey(stream, shardId)

  private def settings(failOnDataLoss: Boolean) = FetchSettings(maxRecordsPerFetch = 100, maxFetchRateMBps = 2.0,
    minFetchPeriodMs = 200, maxFetchDurationMs = 10000, failOnDataLoss = failOnDataLoss)

  /** Ten records, the first six deleted by retention. */
  private final class Fixture {
    val api = new FakeKinesisApi().createStream(stream, 1)
    val seqs: Seq[String] = api.putMany(stream, shardId, "r", 10)
    api.trim(stream, shardId, 6)

    def cursor(start: ShardPosition, failOnDataLoss: Boolean) =
      new ShardCursor(api, shard, start, settings(failOnDataLoss), new FakeClock)
  }

  test("continuing after a deleted record fails the read, naming the shard, the position and the oldest record left") {
    val f = new Fixture
    val e = intercept[KinesisConnectorException](f.cursor(AfterSequence(f.seqs(2)), failOnDataLoss = true).fetch())
    e.getCondition shouldBe "KINESIS_DATA_LOSS"
    e.getMessage should (include(shard.toString) and include(f.seqs(2)) and include(f.seqs(6)) and include(
      "failOnDataLoss"))
  }

  test("with failOnDataLoss false the reader goes on from the oldest record left and counts the loss once") {
    val f = new Fixture
    val cursor = f.cursor(AfterSequence(f.seqs(2)), failOnDataLoss = false)
    val first = cursor.fetch()
    first.records.map(FakeKinesisApi.text) shouldBe (6 until 10).map(i => s"r-$i")
    first.dataLossEvents shouldBe 1
    f.api.put(stream, shardId, "later")
    cursor.fetch().dataLossEvents shouldBe 0
  }

  test("a position at or after the oldest record left, or at the trim horizon, is no loss") {
    val f = new Fixture
    f.cursor(AfterSequence(f.seqs(6)), failOnDataLoss = true).fetch().records.map(FakeKinesisApi.text) shouldBe
      (7 until 10).map(i => s"r-$i")
    f.cursor(AtSequence(f.seqs(6)), failOnDataLoss = true).fetch().records.size shouldBe 4
    f.cursor(TrimHorizon, failOnDataLoss = true).fetch().records.size shouldBe 4
  }

  test("re-reading a batch's range whose records were deleted fails the same way, not silently short") {
    val f = new Fixture
    val e = intercept[KinesisConnectorException](
      new ShardRangeReader(f.api, shard, AfterSequence(f.seqs(1)), AfterSequence(f.seqs(8)), settings(true),
        new FakeClock).toList)
    e.getCondition shouldBe "KINESIS_DATA_LOSS"
  }

  /** A batch's range read again with failOnDataLoss false: its records, and how often the loss was counted. */
  private def reread(f: Fixture, start: ShardPosition, end: Int): (Seq[String], Int) = {
    var losses = 0
    val records = new ShardRangeReader(f.api, shard, start, AfterSequence(f.seqs(end)), settings(false),
      new FakeClock, onDataLoss = () => losses += 1).toList
    (records.map(FakeKinesisApi.text), losses)
  }

  test("with failOnDataLoss false, a batch whose last record retention deleted reads what is left and counts it once") {
    val f = new Fixture
    reread(f, AfterSequence(f.seqs(1)), 4) shouldBe ((Nil, 1))
    reread(f, TrimHorizon, 4) shouldBe ((Nil, 1))
    reread(f, AfterSequence(f.seqs(1)), 8) shouldBe (((6 to 8).map(i => s"r-$i"), 1))
    reread(f, AfterSequence(f.seqs(6)), 8) shouldBe (((7 to 8).map(i => s"r-$i"), 0))
  }

  test("with failOnDataLoss false, a range deleted with nothing after it ends, counted, instead of failing") {
    val f = new Fixture
    f.api.trim(stream, shardId, 10)
    reread(f, AfterSequence(f.seqs(1)), 4) shouldBe ((Nil, 1))
    val e = intercept[KinesisConnectorException](
      new ShardRangeReader(f.api, shard, TrimHorizon, AfterSequence(f.seqs(4)), settings(true), new FakeClock).toList)
    e.getCondition shouldBe "KINESIS_RECORDS_UNAVAILABLE"
  }
}
