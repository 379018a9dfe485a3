// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.options

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.errors.KinesisOptionException

/** The `consumerARN` option: enhanced fan-out with consumers registered elsewhere. */
class ConsumerArnOptionsSuite extends AnyFunSuite with Matchers {
  private val base = Map("streamName" -> "orders", "region" -> "us-east-1", "consumerMode" -> "efo")
  private val orders = "arn:aws:kinesis:us-east-1:123456789012:stream/orders/consumer/reader:1700000000"
  private val payments = "arn:aws:kinesis:us-east-1:123456789012:stream/payments/consumer/reader:1700000001"

  private def arnsOf(options: Map[String, String]): Map[String, String] =
    KinesisSourceOptions.parse(options).efo.get.givenArns

  private def failure(options: (String, String)*): KinesisOptionException =
    intercept[KinesisOptionException](KinesisSourceOptions.parse(base ++ options))

  test("a consumer ARN is read for the stream it names; without the option the query names its own") {
    arnsOf(base + ("consumerARN" -> orders)) shouldBe Map("orders" -> orders)
    arnsOf(base) shouldBe empty
  }

  test("a list gives one consumer per stream, in any order") {
    arnsOf(base ++ Map("streamName" -> "orders,payments", "consumerARN" -> s"$payments, $orders")) shouldBe
      Map("orders" -> orders, "payments" -> payments)
  }

  test("with streamARN, the consumer must belong to exactly that stream") {
    val streamArn = "arn:aws:kinesis:us-east-1:123456789012:stream/orders"
    val byArn = Map("streamARN" -> streamArn, "consumerMode" -> "efo")
    arnsOf(byArn + ("consumerARN" -> orders)) shouldBe Map("orders" -> orders)
    val otherAccount = orders.replace("123456789012", "210987654321")
    val e = intercept[KinesisOptionException](KinesisSourceOptions.parse(byArn + ("consumerARN" -> otherAccount)))
    e.getMessage should include(
      s"is a consumer of arn:aws:kinesis:us-east-1:210987654321:stream/orders, not of $streamArn")
  }

  test("a consumer of a stream not read, a stream without a consumer, or two for one stream are refused") {
    failure("consumerARN" -> payments).getMessage should include("which is not read here")
    failure("streamName" -> "orders,payments", "consumerARN" -> orders).getMessage should
      include("none for stream 'payments'")
    failure("consumerARN" -> s"$orders,${orders.replace("reader", "other")}").getMessage should
      include("two for stream orders")
  }

  test("something that is not a consumer ARN, or one of another region, is refused naming the option") {
    val e = failure("consumerARN" -> "arn:aws:kinesis:us-east-1:123456789012:stream/orders")
    e.getCondition shouldBe "KINESIS_INVALID_OPTION_VALUE"
    e.getMessage should (include("'consumerARN'") and include("is not one"))
    failure("consumerARN" -> orders.replace("us-east-1", "eu-west-1")).getMessage should
      include("is a consumer in region eu-west-1, but the streams are read in us-east-1")
  }

  test("the options of the query's own consumers conflict with a consumer given by ARN") {
    for (option <- Seq("consumerName" -> "mine", "consumerNamePrefix" -> "app_",
        "requireConsumerDeregistration" -> "true")) {
      val e = failure("consumerARN" -> orders, option)
      e.getCondition shouldBe "KINESIS_CONFLICTING_OPTIONS"
      e.getMessage should (include(s"'${option._1}'") and include("'consumerARN'"))
    }
    arnsOf(base ++ Map("consumerARN" -> orders, "requireConsumerDeregistration" -> "false")) shouldBe
      Map("orders" -> orders)
  }

  test("consumerARN applies to enhanced fan-out only") {
    val e = intercept[KinesisOptionException](KinesisSourceOptions.parse(
        Map("streamName" -> "orders", "region" -> "us-east-1", "consumerARN" -> orders)))
    e.getCondition shouldBe "KINESIS_CONFLICTING_OPTIONS"
    e.getMessage should include("set consumerMode to efo")
  }
}
