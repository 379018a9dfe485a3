// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.{FakeClock, FakeKinesisApi}
import io.github.sparkkinesis.client.{KinesisApi, RecordBatch, ShardDescription}
import io.github.sparkkinesis.errors.KinesisConnectorException
import io.github.sparkkinesis.kpl.RangeCheck
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.options.KinesisSourceOptions

class ShardTrackerSuite extends AnyFunSuite with Matchers {

  /** The fake Kinesis, where listing the shards takes `listingMillis` of the clock. */
  /** The fake Kinesis, with ListShards as a subclass answers it. */
  private abstract class ListingOverFake(fake: FakeKinesisApi) extends KinesisApi {
    override def streamCreatedAt(stream: String): Long = fake.streamCreatedAt(stream)
    override def shardIterator(stream: String, shardId: String, position: ShardPosition): String =
      fake.shardIterator(stream, shardId, position)
    override def getRecords(
        stream: String, iterator: String, limit: Int, rangeCheck: Option[RangeCheck]): RecordBatch =
      fake.getRecords(stream, iterator, limit, rangeCheck)
  }

  private final class SlowListing(fake: FakeKinesisApi, clock: FakeClock, listingMillis: Long)
    extends ListingOverFake(fake) {
    var listings = 0
    override def listShards(stream: String, pageSize: Int): Seq[ShardDescription] = {
      listings += 1
      clock.sleepNanos(listingMillis * 1000000L)
      fake.listShards(stream, pageSize)
    }
  }

  private def tracker(listingMillis: Long): (ShardTracker, SlowListing, FakeClock) = {
    val clock = new FakeClock
    val api = new SlowListing(new FakeKinesisApi().createStream("clicks", 2), clock, listingMillis)
    val options = KinesisSourceOptions.parse(Map("streamName" -> "clicks", "region" -> "us-east-1",
        "shardFetchInterval" -> "1s"))
    (new ShardTracker(options, api, "test", clock), api, clock)
  }

  /** How many listings there have been after `millis` more of the clock and one more trigger. */
  private def listingsAfter(millis: Long, shards: ShardTracker, api: SlowListing, clock: FakeClock,
      tracked: Map[ShardKey, ShardPosition]): Int = {
    clock.sleepNanos(millis * 1000000L)
    shards.trackNewShards(tracked)
    api.listings
  }

  test("shards are listed every shardFetchInterval when listing is quick") {
    val (shards, api, clock) = tracker(listingMillis = 10)
    val tracked = shards.trackNewShards(Map.empty)
    tracked.size shouldBe 2
    listingsAfter(500, shards, api, clock, tracked) shouldBe 1
    listingsAfter(500, shards, api, clock, tracked) shouldBe 2
  }

  test("a listing that takes long is repeated only after ten times its duration, so triggers are not spent on it") {
    val (shards, api, clock) = tracker(listingMillis = 2000)
    val tracked = shards.trackNewShards(Map.empty)
    listingsAfter(19000, shards, api, clock, tracked) shouldBe 1
    listingsAfter(1000, shards, api, clock, tracked) shouldBe 2
    shards.trackNewShards(tracked, force = true)
    api.listings shouldBe 3
  }

  /** Kinesis as it is once the stream's retention has passed since `gone` closed: it lists them no more. */
  private final class Forgetting(fake: FakeKinesisApi, gone: Set[String]) extends ListingOverFake(fake) {
    override def listShards(stream: String, pageSize: Int): Seq[ShardDescription] =
      fake.listShards(stream, pageSize).filterNot(d => gone(d.shardId))
  }

  /** A 1-shard stream whose shard was split, and a tracker over a Kinesis that no longer lists the parent. */
  private def expiredParent(failOnDataLoss: Boolean): (ShardTracker, ShardKey, Seq[ShardKey]) = {
    val fake = new FakeKinesisApi().createStream("clicks", 1)
    val parent = fake.listShards("clicks", 100).head.shardId
    val (a, b) = fake.split("clicks", parent)
    val options = KinesisSourceOptions.parse(Map("streamName" -> "clicks", "region" -> "us-east-1",
        "failOnDataLoss" -> failOnDataLoss.toString))
    (new ShardTracker(options, new Forgetting(fake, Set(parent)), "test"), ShardKey("clicks", parent),
      Seq(ShardKey("clicks", a), ShardKey("clicks", b)))
  }

  test("a tracked shard Kinesis no longer lists fails the query with KINESIS_DATA_LOSS naming it and its children") {
    val (shards, parent, children) = expiredParent(failOnDataLoss = true)
    val e = intercept[KinesisConnectorException] {
      shards.trackNewShards(Map(parent -> ShardPosition.AfterSequence("42")))
    }
    e.getCondition shouldBe "KINESIS_DATA_LOSS"
    e.getMessage should include(s"shard $parent")
    e.getMessage should include("after AfterSequence(42)")
    e.getMessage should include(s"in its child shards ${children.map(_.shardId).mkString(", ")}")
  }

  test("with failOnDataLoss false an expired shard is dropped and counted, and its children are read") {
    val (shards, parent, children) = expiredParent(failOnDataLoss = false)
    val tracked = shards.trackNewShards(Map(parent -> ShardPosition.AfterSequence("42")))
    tracked shouldBe children.map(_ -> ShardPosition.TrimHorizon).toMap
    shards.readable(tracked).keySet shouldBe children.toSet
    shards.dataLossEvents shouldBe 1
  }

  test("a shard read to its end that Kinesis no longer lists is no loss") {
    val (shards, parent, children) = expiredParent(failOnDataLoss = true)
    val tracked = shards.trackNewShards(Map(parent -> ShardPosition.ShardEnd(Some("42"))))
    tracked shouldBe children.map(_ -> ShardPosition.TrimHorizon).toMap
    shards.dataLossEvents shouldBe 0
  }
}
