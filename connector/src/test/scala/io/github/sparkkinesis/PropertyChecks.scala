// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis

import org.scalacheck.{Prop, Test}
import org.scalacheck.rng.Seed
import org.scalacheck.util.Pretty
import org.scalatest.funsuite.AnyFunSuite

/**
 * Property tests with a fixed seed per property (so a failure repeats exactly) that say how
 * many generated cases each ran, in the test's name and in its report.
 */
trait PropertyChecks { this: AnyFunSuite =>

  def property(name: String, cases: Int, seed: Long)(prop: => Prop): Unit =
    test(s"$name [$cases cases, seed $seed]")(checkProperty(cases, seed)(prop))

  /** Runs `prop` on `cases` generated cases from `seed`, failing with the first case that fails. */
  def checkProperty(cases: Int, seed: Long)(prop: Prop): Unit = {
    val parameters = Test.Parameters.default.withMinSuccessfulTests(cases).withInitialSeed(Seed(seed))
      .withWorkers(1).withMaxDiscardRatio(1f)
    val result = Test.check(parameters, prop)
    info(s"${result.succeeded} cases passed")
    assert(result.passed, Pretty.pretty(result, Pretty.Params(1)))
  }
}
