// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.polling

import org.scalatest.funsuite.AnyFunSuite

import io.github.sparkkinesis.client.IteratorExpiredException
import io.github.sparkkinesis.client.failures.RetryPolicy
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.{FakeClock, FakeKinesisApi}
import io.github.sparkkinesis.client.{KinesisRecord, ThrottledException}
import io.github.sparkkinesis.errors.KinesisConnectorException
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.options.FetchSettings

class ShardRangeReaderSuite extends AnyFunSuite with Matchers {
  import ShardPosition._

  private val stream = "clicks"
  private val shardId = "shardId-000000000000"
  private val shard = ShardKey(stream, shardId)

  /** Three records per GetRecords call, so every range spans several pages. */
  private val smallPages = FetchSettings(maxRecordsPerFetch = 3, maxFetchRateMBps = 2.0,
    minFetchPeriodMs = 200, maxFetchDurationMs = 10000)

  private final class Fixture(records: Int) {
    val api = new FakeKinesisApi().createStream(stream, 1)
    val seqs: Seq[String] = api.putMany(stream, shardId, "r", records)
    val clock = new FakeClock

    def read(start: ShardPosition, end: String, settings: FetchSettings = smallPages): Seq[KinesisRecord] =
      new ShardRangeReader(api, shard, start, AfterSequence(end), settings, clock).toList

    def payloads(range: Range): Seq[String] = range.map(i => s"r-$i")
  }

  private def texts(records: Seq[KinesisRecord]): Seq[String] = records.map(FakeKinesisApi.text)

  test("the fake's sequence numbers change length, so only a numeric comparison orders them") {
    val f = new Fixture(6)
    f.seqs(3).length shouldBe f.seqs(4).length - 1
    (f.seqs(3) > f.seqs(4)) shouldBe true // as strings: the wrong order
    ShardPosition.compareSequences(f.seqs(3), f.seqs(4)) should be < 0
  }

  test("from trim_horizon: every record up to and including the end, across several pages") {
    val f = new Fixture(10)
    texts(f.read(TrimHorizon, f.seqs(6))) shouldBe f.payloads(0 to 6)
    f.api.callCount("GetRecords") should be >= 3
  }

  test("from after a sequence number: exactly the records after it up to the end") {
    val f = new Fixture(10)
    val records = f.read(AfterSequence(f.seqs(2)), f.seqs(8))
    texts(records) shouldBe f.payloads(3 to 8)
    records.map(_.sequenceNumber) shouldBe f.seqs.slice(3, 9)
  }

  test("from a timestamp: the records that arrived at or after it") {
    val f = new Fixture(10)
    val at = f.api.records(stream, shardId)(4).approximateArrivalMillis
    texts(f.read(AtTimestamp(at), f.seqs(7))) shouldBe f.payloads(4 to 7)
  }

  test("a range of one record") {
    val f = new Fixture(10)
    texts(f.read(AfterSequence(f.seqs(4)), f.seqs(5))) shouldBe Seq("r-5")
  }

  test("stops at the end even when the shard has more records, without further calls") {
    val f = new Fixture(10)
    val big = smallPages.copy(maxRecordsPerFetch = 10000)
    texts(f.read(TrimHorizon, f.seqs(4), big)) shouldBe f.payloads(0 to 4)
    f.api.callCount("GetRecords") shouldBe 1

    f.api.resetCallCounts()
    val reader = new ShardRangeReader(f.api, shard, TrimHorizon, AfterSequence(f.seqs(5)), smallPages, f.clock)
    texts(reader.toList) shouldBe f.payloads(0 to 5)
    reader.hasNext shouldBe false
    f.api.callCount("GetRecords") shouldBe 2 // [0, 1, 2] and [3, 4, 5]
  }

  test("reads a closed shard up to its last record") {
    val f = new Fixture(7)
    f.api.split(stream, shardId)
    texts(f.read(AfterSequence(f.seqs(1)), f.seqs(6))) shouldBe f.payloads(2 to 6)
  }

  test("recovers from an expired iterator without losing or repeating records") {
    val f = new Fixture(9)
    val reader = new ShardRangeReader(f.api, shard, TrimHorizon, AfterSequence(f.seqs(8)), smallPages, f.clock)
    val first = reader.take(4).toList
    f.api.expireNextIterator()
    val rest = reader.toList
    texts(first ++ rest) shouldBe f.payloads(0 to 8)
    // The renewed iterator starts after a record: the retention check reads the trim horizon first.
    f.api.callCount("GetShardIterator") shouldBe 3
  }

  test("an iterator that keeps expiring fails instead of looping forever") {
    val f = new Fixture(3)
    f.api.expireEveryIterator()
    val reader = new ShardRangeReader(f.api, shard, TrimHorizon, AfterSequence(f.seqs(2)), smallPages, f.clock)
    an[IteratorExpiredException] should be thrownBy reader.toList
    f.api.callCount("GetShardIterator") shouldBe 1 + ShardCursor.MaxExpiredRetries
  }

  test("retries when throttled, backs off, and still returns every record once") {
    val f = new Fixture(9)
    f.api.throttleNextGetRecords(3)
    texts(f.read(AfterSequence(f.seqs(0)), f.seqs(8))) shouldBe f.payloads(1 to 8)
    // Three refused (the retention check's read of the trim horizon comes first); each refusal
    // halved the records asked for (3 -> 1), which then double again per call: pages of 1, 2,
    // 3 and 2 records.
    f.api.callCount("GetRecords") shouldBe 3 + 1 + 4
    f.clock.totalSleptMillis should be >= (0 until 3).map(RetryPolicy.GetRecordsThrottled.backOff.delayMs(_, 0.0)).sum
  }

  test("gives up after being throttled again and again, instead of retrying forever") {
    val f = new Fixture(3)
    f.api.throttleNextGetRecords(1000)
    intercept[ThrottledException](f.read(TrimHorizon, f.seqs(2)))
    f.api.callCount("GetRecords") shouldBe ShardCursor.MaxThrottledRetries + 1
  }

  test("a range trimmed away while later records remain is reported, not skipped silently") {
    val f = new Fixture(10)
    f.api.trim(stream, shardId, 8) // Records 0 to 7 passed the retention period.
    val e = intercept[KinesisConnectorException](f.read(AfterSequence(f.seqs(1)), f.seqs(5)))
    // The retention check sees the start is gone before reading (see DataLossSuite).
    e.getCondition shouldBe "KINESIS_DATA_LOSS"
    e.getMessage should include(shard.toString)
    e.getMessage should include(f.seqs(1))
  }

  test("a range trimmed away with nothing after it is reported instead of hanging") {
    val f = new Fixture(6)
    f.api.trim(stream, shardId, 6)
    val e = intercept[KinesisConnectorException](f.read(AfterSequence(f.seqs(1)), f.seqs(5)))
    e.getCondition shouldBe "KINESIS_RECORDS_UNAVAILABLE"
    f.api.callCount("GetRecords") should be <= ShardRangeReader.MaxEmptyReadsAtTip + 1 // + the retention check
  }

  test("a closed shard that ends before the range's end is reported") {
    val f = new Fixture(5)
    f.api.split(stream, shardId)
    val missing = (FakeKinesisApi.SequenceBase + 1000000).toString
    intercept[KinesisConnectorException](f.read(TrimHorizon, missing))
      .getCondition shouldBe "KINESIS_RECORDS_UNAVAILABLE"
  }

  test("reading the same range twice gives identical records") {
    val f = new Fixture(10)
    val once = f.read(AfterSequence(f.seqs(0)), f.seqs(7))
    f.api.putMany(stream, shardId, "later", 5) // New records must not change a past range.
    val twice = f.read(AfterSequence(f.seqs(0)), f.seqs(7))
    twice.map(r => (r.sequenceNumber, r.partitionKey, FakeKinesisApi.text(r), r.approximateArrivalMillis)) shouldBe
      once.map(r => (r.sequenceNumber, r.partitionKey, FakeKinesisApi.text(r), r.approximateArrivalMillis))
    once should have size 7
  }

  test("GetRecords calls on the shard are paced by minFetchPeriod") {
    val f = new Fixture(9)
    val start = f.clock.nowMillis
    f.read(TrimHorizon, f.seqs(8)) should have size 9
    (f.clock.nowMillis - start) should be >= 2 * smallPages.minFetchPeriodMs
  }
}
