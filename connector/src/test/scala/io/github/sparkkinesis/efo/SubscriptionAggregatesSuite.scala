// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.efo

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.FakeClock
import io.github.sparkkinesis.kpl.{HashKeyRange, KplTestData, OutOfRangePolicy, RangeCheck}
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}

/** Enhanced fan-out reads KPL aggregates as polling does: user records, and exact starts inside an aggregate. */
class SubscriptionAggregatesSuite extends AnyFunSuite with Matchers {

  private val shard = ShardKey("orders", "shardId-000000000000")
  private val arn = "arn:aws:kinesis:us-east-1:000000000000:stream/orders/consumer/c:1"

  private final class Setup {
    val clock = new FakeClock
    val transport = new FakeSubscriptionTransport(clock, recordsPerEvent = 2)
    val plain: Seq[String] = transport.put(1, "p")
    val agg: String = transport.putRecord("outer", KplTestData.aggregate((0 until 4).map(i => s"k$i" -> s"a$i"): _*))
    val tail: Seq[String] = transport.put(1, "t")

    def read(start: ShardPosition, rangeCheck: Option[RangeCheck] = None): (Seq[String], SubscriptionCursor) = {
      val cursor = new SubscriptionCursor(transport, shard, arn, start, SubscriptionSettings(), "endpoint fake",
        new SubscribeLimiter(SubscribeLimiter.MinSpacingMs, clock), new EfoMetrics, clock, new Random(1), rangeCheck)
      val got = (0 until 20).flatMap(_ => cursor.fetch(100).records)
      (got.map(r => s"${KplTestData.text(r.data)}/${r.subSequenceNumber}"), cursor)
    }
  }

  test("an aggregate's user records come out one by one, numbered, with their own keys") {
    val s = new Setup
    val (got, cursor) = s.read(ShardPosition.TrimHorizon)
    got shouldBe Seq("p-0/0", "a0/0", "a1/1", "a2/2", "a3/3", "t-2/0")
    cursor.position shouldBe ShardPosition.AfterSequence(s.tail.head)
  }

  test("a subscription started inside an aggregate skips the user records read before") {
    val s = new Setup
    s.read(ShardPosition.AfterSequence(s.agg, Some(1L)))._1 shouldBe Seq("a2/2", "a3/3", "t-2/0")
    s.transport.calls.last.start shouldBe ShardPosition.AfterSequence(s.agg, Some(1L))
  }

  test("with outOfRangeUserRecords drop, user records outside the shard's hash range are dropped, as with polling") {
    val s = new Setup
    // MD5("k0") .. MD5("k3"): keep only those in the low half of the key space.
    val lowHalf = HashKeyRange(BigInt(0), HashKeyRange.MaxHashKey / 2)
    val kept = (0 until 4).filter(i => lowHalf.contains(HashKeyRange.hashKeyOf(s"k$i", None))).map(i => s"a$i/$i")
    kept.size should (be > 0 and be < 4)
    s.read(ShardPosition.TrimHorizon, Some(RangeCheck(lowHalf, Nil, OutOfRangePolicy.Drop)))._1 shouldBe Seq(
      "p-0/0") ++ kept ++ Seq("t-2/0")
  }
}
