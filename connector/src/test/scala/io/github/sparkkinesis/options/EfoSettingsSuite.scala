// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.options

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.errors.KinesisOptionException

class EfoSettingsSuite extends AnyFunSuite with Matchers {

  private val queryId = "3f6a1b9e-2f4c-4d8e-9b1a-0c7d5e2f8a91"

  private def parse(streams: Seq[String], options: (String, String)*): EfoSettings =
    EfoSettings.parse(new OptionValues(options.toMap), streams)

  private def failure(streams: Seq[String], options: (String, String)*): KinesisOptionException =
    intercept[KinesisOptionException](parse(streams, options: _*))

  test("defaults: the query id as name, prefix sparkkinesis_, refresh 300s, no deregistration") {
    val s = parse(Seq("orders"))
    s shouldBe EfoSettings(ConsumerNameChoice.QueryId, "sparkkinesis_", 300000L, requireDeregistration = false)
    s.consumerName("orders", queryId) shouldBe s"sparkkinesis_$queryId"
  }

  test("one consumerName serves every stream") {
    val s = parse(Seq("orders", "clicks"), "consumerName" -> "etl")
    s.consumerName("orders", queryId) shouldBe "sparkkinesis_etl"
    s.consumerName("clicks", queryId) shouldBe "sparkkinesis_etl"
  }

  test("a comma-separated consumerName gives one name per stream, in streamName order") {
    val s = parse(Seq("orders", "clicks"), "consumerName" -> "etl-orders, etl-clicks")
    s.names shouldBe ConsumerNameChoice.PerStream(Map("orders" -> "etl-orders", "clicks" -> "etl-clicks"))
    s.consumerName("clicks", queryId) shouldBe "sparkkinesis_etl-clicks"
  }

  test("consumerNamePrefix databricks_ reuses consumers of the Databricks Runtime; empty means none") {
    parse(Seq("orders"), "consumerName" -> "etl", "consumerNamePrefix" -> "databricks_")
      .consumerName("orders", queryId) shouldBe "databricks_etl"
    parse(Seq("orders"), "consumerName" -> "etl", "consumerNamePrefix" -> "")
      .consumerName("orders", queryId) shouldBe "etl"
  }

  test("refresh interval and deregistration are read, names case-insensitively") {
    val s = parse(Seq("orders"), "CONSUMERREFRESHINTERVAL" -> "1h", "requireconsumerderegistration" -> "TRUE")
    s.refreshIntervalMs shouldBe 3600000L
    s.requireDeregistration shouldBe true
  }

  private val invalid: Seq[(Seq[String], (String, String))] = Seq(
    Seq("orders") -> ("consumerName" -> "has space"),
    Seq("orders") -> ("consumerName" -> "a/b"),
    Seq("orders") -> ("consumerName" -> "x" * 120), // 133 with the prefix.
    Seq("orders", "clicks", "views") -> ("consumerName" -> "a,b"),
    Seq("orders", "clicks") -> ("consumerName" -> "a,"),
    Seq("orders") -> ("consumerNamePrefix" -> "bad prefix "),
    Seq("orders") -> ("consumerNamePrefix" -> "p" * 93), // No room for a query id.
    Seq("orders") -> ("consumerRefreshInterval" -> "3601s"),
    Seq("orders") -> ("consumerRefreshInterval" -> "500ms"),
    Seq("orders") -> ("consumerRefreshInterval" -> "often"),
    Seq("orders") -> ("requireConsumerDeregistration" -> "yes"))

  for ((streams, (option, value)) <- invalid) {
    test(s"$option = '${value.take(20)}' is rejected, naming the option and the value") {
      val e = failure(streams, option -> value)
      e.getCondition shouldBe "KINESIS_INVALID_OPTION_VALUE"
      e.getMessage should include(s"'$option'")
    }
  }

  test("a wrong number of names says how many are needed") {
    failure(Seq("a", "b", "c"), "consumerName" -> "x,y").getMessage should
      include("a comma-separated list of 3 names, one per stream")
  }

  test("the source checks consumer names, and takes them only with consumerMode efo") {
    val base = Map("streamName" -> "orders", "region" -> "us-east-1")
    intercept[KinesisOptionException](KinesisSourceOptions.parse(base + ("consumerName" -> "bad name")))
      .getCondition shouldBe "KINESIS_INVALID_OPTION_VALUE"
    intercept[KinesisOptionException](KinesisSourceOptions.parse(base + ("consumerName" -> "good")))
      .getCondition shouldBe "KINESIS_CONFLICTING_OPTIONS"
    KinesisSourceOptions.parse(base + ("consumerName" -> "good") + ("consumerMode" -> "efo"))
      .efo.get.consumerName("orders", "q") shouldBe "sparkkinesis_good"
  }
}
