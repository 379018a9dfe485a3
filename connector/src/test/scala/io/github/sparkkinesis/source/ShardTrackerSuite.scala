// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import scala.util.Random

import org.scalacheck.{Gen, Prop}
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.{FakeClock, FakeKinesisApi, PropertyChecks}
import io.github.sparkkinesis.client.{KinesisApi, RecordBatch, ShardDescription}
import io.github.sparkkinesis.errors.KinesisConnectorException
import io.github.sparkkinesis.kpl.{HashKeyRange, RangeCheck}
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.options.KinesisSourceOptions

class ShardTrackerSuite extends AnyFunSuite with Matchers with PropertyChecks {

  /** The fake Kinesis, with ListShards as a subclass answers it. */
  private abstract class ListingOverFake(fake: FakeKinesisApi) extends KinesisApi {
    override def streamCreatedAt(stream: String): Long = fake.streamCreatedAt(stream)
    override def shardIterator(stream: String, shardId: String, position: ShardPosition): String =
      fake.shardIterator(stream, shardId, position)
    override def getRecords(
        stream: String, iterator: String, limit: Int, rangeCheck: Option[RangeCheck]): RecordBatch =
      fake.getRecords(stream, iterator, limit, rangeCheck)
  }

  /** The fake Kinesis, where listing the shards takes `listingMillis` of the clock. */
  private final class SlowListing(fake: FakeKinesisApi, clock: FakeClock, var listingMillis: Long)
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

  test("without a reshard under way shards are listed once a minute; with one, every shardFetchInterval") {
    val (shards, api, clock) = tracker(listingMillis = 10)
    val tracked = shards.trackNewShards(Map.empty, shardFetched = false)
    val oneEnded = tracked.updated(tracked.keys.min, ShardPosition.ShardEnd(Some("1")))
    def listingsAfter(millis: Long, fetched: Boolean, at: Map[ShardKey, ShardPosition] = tracked): Int = {
      clock.sleepNanos(millis * 1000000L)
      shards.trackNewShards(at, shardFetched = fetched)
      api.listings
    }
    (1 to 59).map(_ => listingsAfter(1000, fetched = false)).distinct shouldBe Seq(1)
    listingsAfter(1000, fetched = false) shouldBe 2 // the safety net, a minute after the last
    listingsAfter(1000, fetched = true) shouldBe 3 // prefetching reached a shard's end
    listingsAfter(500, fetched = true) shouldBe 3
    listingsAfter(500, fetched = true) shouldBe 4
    listingsAfter(1000, fetched = false, at = oneEnded) shouldBe 5 // a batch reached it
    listingsAfter(1000, fetched = false) shouldBe 5
  }

  test("listings that take long are repeated only after ten times their duration, so triggers are not spent on them") {
    val (shards, api, clock) = tracker(listingMillis = 2000)
    val tracked = shards.trackNewShards(Map.empty)
    // The first listing alone does not count: it also opens the connection.
    listingsAfter(1000, shards, api, clock, tracked) shouldBe 2
    listingsAfter(19000, shards, api, clock, tracked) shouldBe 2
    listingsAfter(1000, shards, api, clock, tracked) shouldBe 3
    shards.trackNewShards(tracked, force = true)
    api.listings shouldBe 4
  }

  test("one slow listing (a cold connection, a pause of the host) does not hold the next one back") {
    val (shards, api, clock) = tracker(listingMillis = 3000)
    val tracked = shards.trackNewShards(Map.empty)
    api.listingMillis = 10
    listingsAfter(1000, shards, api, clock, tracked) shouldBe 2
    api.listingMillis = 3000
    listingsAfter(1000, shards, api, clock, tracked) shouldBe 3
    api.listingMillis = 10
    listingsAfter(1000, shards, api, clock, tracked) shouldBe 4
    listingsAfter(1000, shards, api, clock, tracked) shouldBe 5
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

  test("a stream that lists none of its shards any more is being deleted: KINESIS_STREAM_NOT_FOUND, not data loss") {
    val fake = new FakeKinesisApi().createStream("clicks", 1)
    val shard = fake.listShards("clicks", 100).head.shardId
    val options = KinesisSourceOptions.parse(Map("streamName" -> "clicks", "region" -> "us-east-1"))
    val shards = new ShardTracker(options, new Forgetting(fake, Set(shard)), "test")
    val e = intercept[KinesisConnectorException] {
      shards.trackNewShards(Map(ShardKey("clicks", shard) -> ShardPosition.AfterSequence("42")))
    }
    e.getCondition shouldBe "KINESIS_STREAM_NOT_FOUND"
    e.getMessage should include("'clicks'")
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

  test("a listing that finds the shards as before keeps the tracked map, the lineage and the listing version") {
    val fake = new FakeKinesisApi().createStream("clicks", 2)
    val options = KinesisSourceOptions.parse(Map("streamName" -> "clicks", "region" -> "us-east-1"))
    val shards = new ShardTracker(options, fake, "test")
    val tracked = shards.trackNewShards(Map.empty)
    val (version, parents) = (shards.listingVersion, shards.parents)
    shards.trackNewShards(tracked, force = true) should be theSameInstanceAs tracked
    shards.listingVersion shouldBe version
    shards.parents should be theSameInstanceAs parents
    val (a, b) = fake.split("clicks", tracked.keys.min.shardId)
    shards.trackNewShards(tracked, force = true).size shouldBe 4
    shards.listingVersion shouldBe version + 1
    shards.parents shouldBe Seq(a, b).map(c => ShardKey("clicks", c) -> Seq(tracked.keys.min)).toMap
  }

  /** The readable shards of `tracked` as the listing `listed` itself says (ARCHITECTURE.md invariant 2). */
  private def readableFromScratch(tracked: Map[ShardKey, ShardPosition],
      listed: Map[ShardKey, ShardDescription]): Map[ShardKey, ShardPosition] =
    tracked.filter { case (key, position) =>
      val parents = listed.get(key).toSeq.flatMap(_.parents).map(ShardKey(key.stream, _))
      !position.isInstanceOf[ShardPosition.ShardEnd] &&
      parents.forall(p => tracked.get(p).forall(_.isInstanceOf[ShardPosition.ShardEnd]))
    }

  property("the lineage kept per listing gives the readable shards the listing itself gives, over random reshards",
    cases = 200, seed = 20261126L) {
    Prop.forAll(Gen.choose(Long.MinValue, Long.MaxValue)) { seed =>
      val random = new Random(seed)
      val fake = new FakeKinesisApi().createStream("clicks", 1 + random.nextInt(4))
      val options = KinesisSourceOptions.parse(Map("streamName" -> "clicks", "region" -> "us-east-1"))
      val shards = new ShardTracker(options, fake, "test")
      var tracked = shards.trackNewShards(Map.empty)
      val positions = Seq(ShardPosition.TrimHorizon, ShardPosition.AfterSequence("7"), ShardPosition.ShardEnd(None))
      (1 to 1 + random.nextInt(10)).forall { _ =>
        val open = fake.listShards("clicks", 1000).filterNot(_.closed).map(_.shardId)
        val resharded = random.nextInt(3) match {
          case 0 => fake.split("clicks", open(random.nextInt(open.size))); true
          case 1 if open.size > 1 =>
            val Seq(p, q) = random.shuffle(open).take(2)
            fake.merge("clicks", p, q); true
          case _ => false
        }
        val (version, before) = (shards.listingVersion, tracked)
        val next = shards.trackNewShards(before, force = true)
        // Shards read to their end (or not) and shards dropped, as batches and expiry leave them.
        tracked = next.collect { case (key, _) if random.nextInt(8) > 0 => key -> positions(random.nextInt(3)) }
        val listed = fake.listShards("clicks", 1000).map(d => ShardKey("clicks", d.shardId) -> d).toMap
        shards.listingVersion == version + (if (resharded) 1 else 0) &&
        (resharded || next != before || (next eq before)) &&
        shards.readable(tracked) == readableFromScratch(tracked, listed)
      }
    }
  }

  test("dropAfterSplit after a restart that finds a split's parent expired checks the children as the first run did") {
    val max = HashKeyRange.MaxHashKey
    val mid = max / 2
    val parent = ShardDescription("shardId-000000000000", None, None, closed = true, Some(HashKeyRange(0, max)))
    val left = ShardDescription("shardId-000000000001", Some(parent.shardId), None, closed = false,
      Some(HashKeyRange(0, mid)))
    val right = ShardDescription("shardId-000000000002", Some(parent.shardId), None, closed = false,
      Some(HashKeyRange(mid + 1, max)))
    final class Listing(var shards: Seq[ShardDescription])
      extends ListingOverFake(new FakeKinesisApi().createStream("clicks", 1)) {
      override def listShards(stream: String, pageSize: Int): Seq[ShardDescription] = shards
    }
    val options = KinesisSourceOptions.parse(Map("streamName" -> "clicks", "region" -> "us-east-1",
        "outOfRangeUserRecords" -> "dropAfterSplit"))
    // The first run lists the parent while it is open, then its children once it is split.
    val firstListing = new Listing(Seq(parent.copy(closed = false)))
    val first = new ShardTracker(options, firstListing, "first")
    first.listShards()
    firstListing.shards = Seq(parent, left, right)
    first.listShards()
    // Started again once the parent passed the retention period: Kinesis lists the children alone.
    val restarted = new ShardTracker(options, new Listing(Seq(left, right)), "restarted")
    restarted.listShards()
    val children = Seq(left, right).map(d => ShardKey("clicks", d.shardId))
    children.map(restarted.rangeChecks) shouldBe children.map(first.rangeChecks)
    // An aggregate a producer with a stale map put on the left child, holding a record of the right one's range.
    val staleAggregate = IndexedSeq(BigInt(1), mid + 5)
    restarted.rangeChecks(children.head).dropsOutside(staleAggregate, markedByProducer = false) shouldBe true
  }
}
