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
}
