// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sql

import org.apache.spark.sql.catalyst.expressions.{Expression, Literal, NamedArgumentExpression, Rand}
import org.apache.spark.sql.types.StringType
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.errors.KinesisOptionException

/** `read_kinesis`'s arguments become the options of a read, or fail naming the argument. */
class ReadKinesisSuite extends AnyFunSuite with Matchers {
  private def named(name: String, value: Expression) = NamedArgumentExpression(name, value)

  private def failure(arguments: Expression*): KinesisOptionException =
    intercept[KinesisOptionException](ReadKinesis.options(arguments))

  test("named constant arguments are the options, numbers and booleans as their text") {
    ReadKinesis.options(Seq(named("streamName", Literal("orders")), named("maxRecordsPerFetch", Literal(500)),
        named("emptyBatches", Literal(true)))) shouldBe
      Map("streamName" -> "orders", "maxRecordsPerFetch" -> "500", "emptyBatches" -> "true")
  }

  test("an argument without a name fails, saying which") {
    val e = failure(named("streamName", Literal("orders")), Literal("us-east-1"))
    e.getMessage should include("KINESIS_SQL_ARGUMENT_INVALID")
    e.getMessage should include("named arguments only; argument 2 ('us-east-1') has no name")
  }

  test("an option given twice (names match case-insensitively) fails") {
    failure(named("streamName", Literal("a")), named("STREAMNAME", Literal("b"))).getMessage should include(
      "is given 2 times")
  }

  test("a NULL or non-constant argument fails, naming it") {
    failure(named("streamName", Literal("a")), named("region", Literal(null, StringType))).getMessage should include(
      "argument region is NULL")
    failure(named("streamName", Literal("a")), named("region", Rand(Literal(1L)))).getMessage should include(
      "argument region must be a constant")
  }

  test("no arguments at all fails, asking for the stream") {
    failure().getMessage should include("needs at least streamName")
  }
}
