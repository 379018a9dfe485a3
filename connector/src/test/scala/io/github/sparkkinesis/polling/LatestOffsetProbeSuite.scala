// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.polling

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.{FakeClock, FakeKinesisApi}
import io.github.sparkkinesis.client.failures.RetryPolicy
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.options.FetchSettings

class LatestOffsetProbeSuite extends AnyFunSuite with Matchers {
  import ShardPosition._

  private val stream = "clicks"
  private def shardId(i: Int) = f"shardId-$i%012d"
  private def shardKey(i: Int) = ShardKey(stream, shardId(i))

  private val settings = FetchSettings(maxRecordsPerFetch = 10000, maxFetchRateMBps = 2.0,
    minFetchPeriodMs = 200, maxFetchDurationMs = 1000)

  private def withProbe(api: FakeKinesisApi, s: FetchSettings = settings)(
      body: (LatestOffsetProbe, FakeClock) => Unit): Unit = {
    val clock = new FakeClock
    body(new LatestOffsetProbe(api, s, clock), clock)
  }

  test("advances each shard to its last record when caught up") {
    val api = new FakeKinesisApi().createStream(stream, 3)
    val a = api.putMany(stream, shardId(0), "a", 5)
    val b = api.putMany(stream, shardId(1), "b", 3)
    val c = api.putMany(stream, shardId(2), "c", 4)
    withProbe(api) { (probe, _) =>
      probe.advance(Map(shardKey(0) -> TrimHorizon, shardKey(1) -> AfterSequence(b(0)),
          shardKey(2) -> AfterSequence(c(3)))) shouldBe
        Map(shardKey(0) -> AfterSequence(a.last), shardKey(1) -> AfterSequence(b.last),
          shardKey(2) -> AfterSequence(c.last))
    }
  }

  test("an empty page behind the tip does not end the read-ahead") {
    val api = new FakeKinesisApi().createStream(stream, 1)
    val a = api.putMany(stream, shardId(0), "a", 5)
    api.emptyPagesBehindTip(2)
    withProbe(api) { (probe, _) =>
      probe.advance(Map(shardKey(0) -> TrimHorizon)) shouldBe Map(shardKey(0) -> AfterSequence(a.last))
    }
  }

  test("a closed shard read to its end becomes ShardEnd with its last sequence number") {
    val api = new FakeKinesisApi().createStream(stream, 2)
    val a = api.putMany(stream, shardId(0), "a", 4)
    api.split(stream, shardId(0))
    api.split(stream, shardId(1)) // closed without any record
    withProbe(api) { (probe, _) =>
      probe.advance(Map(shardKey(0) -> AfterSequence(a(1)), shardKey(1) -> TrimHorizon)) shouldBe
        Map(shardKey(0) -> ShardEnd(Some(a.last)), shardKey(1) -> ShardEnd(None))
    }
  }

  test("a closed shard already read to its end stays ShardEnd and costs no call") {
    val api = new FakeKinesisApi().createStream(stream, 1)
    val a = api.putMany(stream, shardId(0), "a", 2)
    api.split(stream, shardId(0))
    withProbe(api) { (probe, _) =>
      probe.advance(Map(shardKey(0) -> ShardEnd(Some(a.last)))) shouldBe Map(shardKey(0) -> ShardEnd(Some(a.last)))
      api.callCount("GetRecords") shouldBe 0
    }
  }

  test("an idle shard stays at its start and costs one GetRecords per call") {
    val api = new FakeKinesisApi().createStream(stream, 2)
    val a = api.putMany(stream, shardId(0), "a", 3)
    withProbe(api) { (probe, _) =>
      var positions = Map(shardKey(0) -> AfterSequence(a.last), shardKey(1) -> (TrimHorizon: ShardPosition))
      (1 to 3).foreach { call =>
        val next = probe.advance(positions)
        next shouldBe positions
        // Each advance starts a new cursor: after a record, it also reads the trim horizon (the retention check).
        api.callCount("GetRecords") shouldBe 3 * call
        positions = next
      }
    }
  }

  test("does not read past maxFetchDuration when the shard always has more data") {
    val api = new FakeKinesisApi().createStream(stream, 1)
    val seqs = api.putMany(stream, shardId(0), "r", 200)
    val onePerCall = settings.copy(maxRecordsPerFetch = 1)
    withProbe(api, onePerCall) { (probe, clock) =>
      val started = clock.nowMillis
      val first = probe.advance(Map(shardKey(0) -> TrimHorizon))(shardKey(0))
      val spent = clock.nowMillis - started
      spent should be <= onePerCall.maxFetchDurationMs + onePerCall.minFetchPeriodMs
      val calls = api.callCount("GetRecords")
      calls should be <= (onePerCall.maxFetchDurationMs / onePerCall.minFetchPeriodMs + 1).toInt
      first shouldBe AfterSequence(seqs(calls - 1))

      // The next trigger carries on from there.
      val second = probe.advance(Map(shardKey(0) -> first))(shardKey(0))
      val index = seqs.indexOf(second.lastSequence.get)
      index should be > (calls - 1)
      index should be < seqs.size - 1
    }
  }

  test("finds the last record even when Kinesis reports 0 ms behind for full pages") {
    val api = new FakeKinesisApi().createStream(stream, 1)
    val seqs = api.putMany(stream, shardId(0), "r", 7)
    api.reportZeroMillisBehind()
    withProbe(api, settings.copy(maxRecordsPerFetch = 2)) { (probe, _) =>
      probe.advance(Map(shardKey(0) -> TrimHorizon)) shouldBe Map(shardKey(0) -> AfterSequence(seqs.last))
    }
  }

  test("advancing from a different position than the last result starts over from it") {
    val api = new FakeKinesisApi().createStream(stream, 1)
    val a = api.putMany(stream, shardId(0), "a", 5)
    withProbe(api) { (probe, _) =>
      probe.advance(Map(shardKey(0) -> TrimHorizon)) shouldBe Map(shardKey(0) -> AfterSequence(a.last))
      // As after a restart from an older checkpoint: the answer must still be right.
      probe.advance(Map(shardKey(0) -> AfterSequence(a(1)))) shouldBe Map(shardKey(0) -> AfterSequence(a.last))
      api.callCount("GetShardIterator") shouldBe 3 // the second also for its retention check
    }
  }

  test("a throttled probe backs off and still finds the tip") {
    val api = new FakeKinesisApi().createStream(stream, 1)
    val a = api.putMany(stream, shardId(0), "a", 3)
    api.throttleNextGetRecords(2)
    withProbe(api) { (probe, clock) =>
      probe.advance(Map(shardKey(0) -> TrimHorizon)) shouldBe Map(shardKey(0) -> AfterSequence(a.last))
      clock.totalSleptMillis should be >= (0 until 2).map(RetryPolicy.GetRecordsThrottled.backOff.delayMs(_, 0.0)).sum
    }
  }
}
