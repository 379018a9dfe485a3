// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.offsets

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

class ShardPositionSuite extends AnyFunSuite with Matchers {
  import ShardPosition._

  private val seq = "49590338271490256608559692538361571095921575989136588898"
  private val next = "49590338271490256608559692538361571095921575989136588899"

  test("sequence numbers compare as numbers, whatever their length and leading zeros") {
    compareSequences(seq, next) should be < 0
    compareSequences(next, seq) should be > 0
    compareSequences(seq, seq) shouldBe 0
    compareSequences("9", "10") should be < 0
    compareSequences("0009", "10") should be < 0
    compareSequences("010", "10") shouldBe 0
    compareSequences("0", "000") shouldBe 0
    compareSequences("0", "1") should be < 0
    compareSequences("99999999999999999999999999999999999999", "100000000000000000000000000000000000000") should be < 0
  }

  test("the comparison agrees with the numbers' order on random sequence numbers") {
    val random = new Random(15)
    def number(): String = "0" * random.nextInt(3) + BigInt(random.nextInt(128) + 1, random).toString
    (1 to 2000).foreach { _ =>
      val (a, b) = (number(), number())
      withClue(s"$a vs $b") {
        Integer.signum(compareSequences(a, b)) shouldBe Integer.signum(BigInt(a).compare(BigInt(b)))
      }
    }
  }

  test("a record is past a position after an earlier record, or after an earlier user record of its aggregate") {
    isPast(next, 0L, AfterSequence(seq)) shouldBe true
    isPast(seq, 0L, AfterSequence(seq)) shouldBe false
    isPast(seq, 3L, AfterSequence(seq, Some(2L))) shouldBe true
    isPast(seq, 2L, AfterSequence(seq, Some(2L))) shouldBe false
    isPast(seq, 0L, AtSequence(seq)) shouldBe true
    isPast(seq, 0L, AtSequence(next)) shouldBe false
    isPast(seq, 0L, ShardEnd(None)) shouldBe false
    isPast(seq, 0L, TrimHorizon) shouldBe true
  }

  test("a position covers an end at or before it, and one inside an aggregate it read past") {
    covers(AfterSequence(next), AfterSequence(seq)) shouldBe true
    covers(AfterSequence(seq), AfterSequence(seq)) shouldBe true
    covers(AfterSequence(seq), AfterSequence(next)) shouldBe false
    covers(AfterSequence(seq, Some(4L)), AfterSequence(seq, Some(3L))) shouldBe true
    covers(AfterSequence(seq, Some(2L)), AfterSequence(seq, Some(3L))) shouldBe false
    covers(AfterSequence(seq, Some(2L)), AfterSequence(seq)) shouldBe false
    covers(ShardEnd(Some(seq)), AfterSequence(seq)) shouldBe true
    covers(ShardEnd(None), AfterSequence(seq)) shouldBe false
    covers(TrimHorizon, AfterSequence(seq)) shouldBe false
  }
}
