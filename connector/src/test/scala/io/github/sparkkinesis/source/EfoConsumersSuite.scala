// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.FakeClock
import io.github.sparkkinesis.efo.{ConsumerRegistry, FakeConsumerApi}
import io.github.sparkkinesis.options.KinesisSourceOptions

/** The query's consumers are checked again every `consumerRefreshInterval` of the clock it is given. */
class EfoConsumersSuite extends AnyFunSuite with Matchers {

  test("a consumer is checked again once consumerRefreshInterval has passed on the query's clock, not before") {
    val clock = new FakeClock
    val api = new FakeConsumerApi(clock).createStream("orders")
    val arn = api.registerDirectly("orders", "elsewhere")
    clock.advanceMillis(5000)
    val options = KinesisSourceOptions.parse(Map("streamName" -> "orders", "region" -> "us-east-1",
        "consumerMode" -> "efo", "consumerARN" -> arn, "consumerRefreshInterval" -> "60s"))
    val registry = new ConsumerRegistry(api, "endpoint fake", clock, 60000, 500, new Random(7))
    val consumers = new EfoConsumers(options, options.efo.get, null, "test", clock, _ => registry)
    def checks = api.callCount("DescribeStreamConsumer")

    consumers.resolve() shouldBe Map("orders" -> arn)
    checks shouldBe 1
    clock.advanceMillis(59000)
    consumers.resolve()
    checks shouldBe 1
    clock.advanceMillis(1000)
    consumers.resolve()
    checks shouldBe 2
    consumers.resolve(force = true)
    checks shouldBe 3
  }
}
