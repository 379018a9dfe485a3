// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.efo

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.FakeClock
import io.github.sparkkinesis.errors.KinesisConnectorException

/** A consumer given by ARN (`consumerARN`) is only checked: never registered, waited for nor deregistered. */
class GivenConsumerSuite extends AnyFunSuite with Matchers {

  private def setup(): (FakeConsumerApi, ConsumerRegistry, FakeClock) = {
    val clock = new FakeClock
    val api = new FakeConsumerApi(clock).createStream("orders").createStream("payments")
    (api, new ConsumerRegistry(api, "endpoint fake", clock, 60000, 500, new Random(7)), clock)
  }

  private def unusable(registry: ConsumerRegistry, stream: String, arn: String): KinesisConnectorException = {
    val e = intercept[KinesisConnectorException](registry.checkGiven(stream, arn, "consumerARN"))
    e.getCondition shouldBe "KINESIS_EFO_CONSUMER_ARN_UNUSABLE"
    e.getMessage should (include("option 'consumerARN'") and include(arn) and include("endpoint fake"))
    e
  }

  test("an ACTIVE consumer of the stream is read with as it is") {
    val (api, registry, clock) = setup()
    val arn = api.registerDirectly("orders", "elsewhere")
    clock.advanceMillis(5000)
    registry.checkGiven("orders", arn, "consumerARN") shouldBe arn
    Seq("RegisterStreamConsumer", "DeregisterStreamConsumer").map(api.callCount) shouldBe Seq(0, 0)
  }

  test("a consumer that does not exist is an error, not registered") {
    val (api, registry, _) = setup()
    val e = unusable(registry, "orders", "arn:aws:kinesis:us-east-1:000000000000:stream/orders/consumer/gone:1")
    e.getMessage should include("Kinesis has no such consumer")
    api.callCount("RegisterStreamConsumer") shouldBe 0
  }

  test("a consumer not ACTIVE yet is an error at once, not waited for") {
    val (api, registry, clock) = setup()
    val arn = api.registerDirectly("orders", "creating")
    unusable(registry, "orders", arn).getMessage should include("its status is CREATING, not ACTIVE")
    clock.totalSleptMillis shouldBe 0L
  }

  test("a consumer of another stream is an error naming both streams") {
    val (api, registry, clock) = setup()
    val arn = api.registerDirectly("payments", "elsewhere")
    clock.advanceMillis(5000)
    unusable(registry, "orders", arn).getMessage should include(
      "it is a consumer of arn:aws:kinesis:us-east-1:000000000000:stream/payments, " +
        "not of arn:aws:kinesis:us-east-1:000000000000:stream/orders")
  }
}
