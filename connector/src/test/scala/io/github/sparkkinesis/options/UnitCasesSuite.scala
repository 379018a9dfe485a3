// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.options

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.ObjectMapper
import org.apache.spark.network.util.JavaUtils
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

/**
 * The Python builders check duration and size strings without a JVM (for Spark Connect);
 * `python/tests/data/unit_cases.json` holds their verdicts, which `test_units_cases.py` checks
 * on the Python side. Here: every string they accept, the JVM reads (as [[OptionValues]] does)
 * to the same value, so what the builders let through never fails or means something else.
 */
class UnitCasesSuite extends AnyFunSuite with Matchers {
  private val cases = new ObjectMapper().readTree(OptionsReference.read("python/tests/data/unit_cases.json"))

  private def accepted(field: String): Seq[(String, Long)] =
    cases.get(field).fields().asScala.toSeq.collect { case e if !e.getValue.isNull => e.getKey -> e.getValue.asLong }

  test("every duration the Python builders accept is the same number of milliseconds to the JVM") {
    val read = accepted("durationsMs")
    read should not be empty
    read.foreach { case (text, ms) => withClue(text)(JavaUtils.timeStringAsMs(text.trim) shouldBe ms) }
  }

  test("every size the Python builders accept is the same number of bytes to the JVM") {
    val read = accepted("sizesBytes")
    read should not be empty
    read.foreach { case (text, bytes) => withClue(text)(JavaUtils.byteStringAsBytes(text.trim) shouldBe bytes) }
  }
}
