// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.errors.KinesisErrors

/** What a failed prefetch round does to the query: retried a few times, or ended with a clear error. */
class FailurePolicySuite extends AnyFunSuite with Matchers {

  private def serviceFault = KinesisErrors.apiFailed("GetRecords", "shard s", "endpoint e", new RuntimeException("500"))
  private def streamGone = KinesisErrors.streamNotFound("s", "endpoint e", new RuntimeException("not found"))

  test("a passing fault is retried, waiting longer each time, until too many rounds in a row failed") {
    val policy = new FailurePolicy
    val waits = (1 until FailurePolicy.MaxFailuresInARow).map(_ => policy.failed(serviceFault))
    waits shouldBe (1 until FailurePolicy.MaxFailuresInARow).map(n => Some(1000L * n))
    policy.fatal shouldBe None
    val last = serviceFault
    policy.failed(last) shouldBe None
    policy.fatal shouldBe Some(last)
  }

  test("a round that succeeds starts the count again") {
    val policy = new FailurePolicy
    (1 until FailurePolicy.MaxFailuresInARow).foreach(_ => policy.failed(serviceFault))
    policy.succeeded()
    policy.failed(serviceFault) shouldBe Some(1000L)
    policy.fatal shouldBe None
  }

  test("a round that found its consumer deleted is retried, and noted once for the stream to register it again") {
    val policy = new FailurePolicy
    val deleted =
      KinesisErrors.efoConsumerDeleted("s/shardId-0", "arn:consumer", "endpoint e", new RuntimeException("gone"))
    policy.takeConsumerDeleted() shouldBe false
    policy.failed(new RuntimeException("job failed", deleted)) shouldBe Some(1000L)
    policy.takeConsumerDeleted() shouldBe true
    policy.takeConsumerDeleted() shouldBe false
    policy.failed(serviceFault)
    policy.takeConsumerDeleted() shouldBe false
  }

  test("an error retrying cannot fix ends prefetching at once with that error, even when wrapped") {
    val policy = new FailurePolicy
    val gone = streamGone
    policy.failed(new RuntimeException("job failed", gone)) shouldBe None
    policy.fatal shouldBe Some(gone)
  }

  test("a cause chain whose exceptions name each other is walked once, not for ever") {
    val outer = new RuntimeException("outer")
    val inner = new RuntimeException("inner")
    outer.initCause(inner)
    inner.initCause(outer)
    val policy = new FailurePolicy
    val answer = java.util.concurrent.CompletableFuture.supplyAsync(() => policy.failed(outer))
    answer.get(10, java.util.concurrent.TimeUnit.SECONDS) shouldBe Some(1000L)
  }
}
