// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.efo

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.FakeClock
import io.github.sparkkinesis.errors.{KinesisConnectorException, KinesisOptionException}
import io.github.sparkkinesis.options.ConsumerNames

class ConsumerRegistrySuite extends AnyFunSuite with Matchers {

  private def setup(timeoutMs: Long = 60000): (FakeConsumerApi, ConsumerRegistry, FakeClock) = {
    val clock = new FakeClock
    val api = new FakeConsumerApi(clock).createStream("orders")
    (api, new ConsumerRegistry(api, "endpoint fake", clock, timeoutMs, 500, new Random(7)), clock)
  }

  test("an ACTIVE consumer with the name is reused, not registered again") {
    val (api, registry, clock) = setup()
    val arn = api.registerDirectly("orders", "sparkkinesis_q1")
    clock.advanceMillis(5000)
    registry.resolve("orders", "sparkkinesis_q1") shouldBe arn
    api.callCount("RegisterStreamConsumer") shouldBe 0
    clock.totalSleptMillis shouldBe 0L
  }

  test("a missing consumer is registered and waited for until ACTIVE") {
    val (api, registry, clock) = setup()
    val arn = registry.resolve("orders", "sparkkinesis_q1")
    arn should include("consumer/sparkkinesis_q1")
    api.callCount("RegisterStreamConsumer") shouldBe 1
    clock.totalSleptMillis should be >= 3000L // The fake activates after 3 s.
    api.describeConsumer(api.streamArn("orders"), "sparkkinesis_q1").map(_.status) shouldBe Some("ACTIVE")
  }

  test("registering again returns the same ARN") {
    val (_, registry, _) = setup()
    registry.resolve("orders", "c") shouldBe registry.resolve("orders", "c")
  }

  test("a consumer still CREATING is waited for, not registered twice") {
    val (api, registry, _) = setup()
    val arn = api.registerDirectly("orders", "c")
    registry.resolve("orders", "c") shouldBe arn
    api.callCount("RegisterStreamConsumer") shouldBe 0
  }

  test("losing a registration race to another query (ResourceInUse) waits for the winner's consumer") {
    val (api, registry, _) = setup()
    api.registerElsewhereOnNextRegister()
    val arn = registry.resolve("orders", "c")
    api.callCount("RegisterStreamConsumer") shouldBe 1
    api.listConsumers(api.streamArn("orders")).map(_.arn) shouldBe Seq(arn)
  }

  test("a consumer being deleted is waited out, then registered anew with a new ARN") {
    val (api, registry, _) = setup()
    val old = registry.resolve("orders", "c")
    registry.deregister("orders", "c") shouldBe true
    val renewed = registry.resolve("orders", "c")
    renewed should not be old
  }

  test("a consumer that never becomes ACTIVE ends in a clear time-out error") {
    val (api, registry, clock) = setup(timeoutMs = 20000)
    api.neverActivate()
    val e = intercept[KinesisConnectorException](registry.resolve("orders", "c"))
    e.getCondition shouldBe "KINESIS_EFO_CONSUMER_NOT_ACTIVE"
    e.getMessage should (include("'c'") and include("'orders'") and include("20.0s") and include("CREATING"))
    clock.totalSleptMillis should (be >= 20000L and be <= 21000L)
  }

  test("throttled calls are retried with back-off") {
    val (api, registry, clock) = setup()
    api.throttleNext(3)
    registry.resolve("orders", "c") should include("consumer/c")
    clock.totalSleptMillis should be >= 1500L
  }

  test("registration throttled until the time-out says the stream may have too many consumers") {
    val (api, registry, _) = setup(timeoutMs = 10000)
    api.throttleNext(1000)
    val e = intercept[KinesisConnectorException](registry.resolve("orders", "c"))
    e.getCondition shouldBe "KINESIS_EFO_CONSUMER_LIMIT"
    e.getMessage should include("at most 20 consumers")
  }

  test("consumer names are validated before any call") {
    val (api, registry, _) = setup()
    Seq("", "has space", "slash/name", "ü", "x" * 129).foreach { bad =>
      val e = intercept[KinesisOptionException](registry.resolve("orders", bad))
      e.getCondition shouldBe "KINESIS_EFO_CONSUMER_NAME_INVALID"
      e shouldBe an[IllegalArgumentException]
    }
    api.callCount("DescribeStreamSummary") shouldBe 0
    ConsumerNames.validate("a.B-9_" + "x" * 122) should have length 128
  }

  test("deregistration removes the consumer; a missing one reports false") {
    val (api, registry, clock) = setup()
    registry.resolve("orders", "c")
    registry.deregister("orders", "c") shouldBe true
    registry.deregister("orders", "c") shouldBe false // Already DELETING.
    clock.advanceMillis(5000)
    registry.list("orders") shouldBe empty
    registry.deregister("orders", "c") shouldBe false
  }

  test("best-effort deregistration never throws") {
    val (api, registry, _) = setup()
    api.throttleNext(100)
    noException should be thrownBy registry.deregisterQuietly("orders", "c")
    noException should be thrownBy registry.deregisterQuietly("no-such-stream", "c")
  }
}
