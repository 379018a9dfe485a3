// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis

import org.scalacheck.{Gen, Prop}
import org.scalatest.funsuite.AnyFunSuite

/**
 * Fuzzing of the connector's wire decoders as long property runs: valid inputs damaged the way
 * a fuzzer damages them (bits flipped, bytes changed, inserted or removed, cut short, stretches
 * repeated, huge lengths and deep nesting written in) and random bytes, each fed to a decoder's
 * entry point, whose outcome must be one its contract allows. A few seconds a suite in the
 * normal test run; `-Dkinesis.fuzz.runs=N` (or `KINESIS_FUZZ_RUNS=N`) runs N cases a property,
 * and `-Dkinesis.fuzz.seed=S` another seed (see CONTRIBUTING.md, "Fuzzing the decoders").
 */
trait Fuzz extends PropertyChecks { this: AnyFunSuite =>

  /**
   * Checks that `decode` ends in an allowed outcome for every input `inputs` draws; it returns
   * the outcome's name, and throws for any other. A failure names the input in hex, for the
   * suite's corpus of regression cases.
   */
  def fuzz(name: String, inputs: Gen[Array[Byte]], cases: Int, seed: Long)(decode: Array[Byte] => String): Unit = {
    val n = Fuzz.runs(cases)
    val s = Fuzz.seed(seed)
    test(s"fuzz: $name [$n cases, seed $s]") {
      val outcomes = scala.collection.mutable.Map.empty[String, Int].withDefaultValue(0)
      checkProperty(n, s) {
        Prop.forAllNoShrink(inputs) { input =>
          outcomes(Fuzz.outcome(input, decode)) += 1
          true
        }
      }
      info(outcomes.toSeq.sorted.map { case (o, k) => s"$k $o" }.mkString(", "))
    }
  }

  /** A kept input that once broke a decoder: it now ends in `expected`. */
  def corpus(name: String, input: Array[Byte], expected: String)(decode: Array[Byte] => String): Unit =
    test(s"corpus: $name")(assert(Fuzz.outcome(input, decode) == expected))
}

object Fuzz {
  def runs(default: Int): Int =
    sys.props.get("kinesis.fuzz.runs").orElse(sys.env.get("KINESIS_FUZZ_RUNS")).map(_.trim.toInt).getOrElse(default)

  def seed(default: Long): Long = sys.props.get("kinesis.fuzz.seed").map(_.trim.toLong).getOrElse(default)

  /**
   * `decode(input)`; any throwable it lets out (a `StackOverflowError` or an `OutOfMemoryError`
   * too) fails with the input in hex.
   */
  def outcome(input: Array[Byte], decode: Array[Byte] => String): String =
    try decode(input)
    catch {
      case t: Throwable =>
        val shown = if (input.length <= 4096) hex(input) else s"${hex(input.take(4096))}... (${input.length} bytes)"
        throw new AssertionError(s"the decoder let out $t on the input $shown", t)
    }

  def hex(bytes: Array[Byte]): String = bytes.map(b => f"${b & 0xff}%02x").mkString

  def unhex(text: String): Array[Byte] = {
    val digits = text.filterNot(_.isWhitespace)
    digits.grouped(2).map(Integer.parseInt(_, 16).toByte).toArray
  }

  /** Any bytes, mostly short. */
  val randomBytes: Gen[Array[Byte]] = Gen.frequency(
    4 -> Gen.choose(0, 64), 2 -> Gen.choose(64, 1024), 1 -> Gen.choose(1024, 16384)).flatMap { n =>
    Gen.long.map { seed =>
      val out = new Array[Byte](n)
      new scala.util.Random(seed).nextBytes(out)
      out
    }
  }

  /**
   * `valid` inputs with one to four damages, some of them bytes `special` gives (for a format:
   * its heads with huge lengths or counts, openers repeated to nest deep).
   */
  def mutated(valid: Gen[Array[Byte]], special: Gen[Array[Byte]]): Gen[Array[Byte]] = for {
    input <- valid
    n <- Gen.choose(1, 4)
    seeds <- Gen.listOfN(n, Gen.long)
    specials <- Gen.listOfN(n, special)
  } yield seeds.zip(specials).foldLeft(input) { case (bytes, (seed, extra)) => damage(bytes, seed, extra) }

  private def damage(bytes: Array[Byte], seed: Long, special: Array[Byte]): Array[Byte] = {
    val r = new scala.util.Random(seed)
    val at = if (bytes.isEmpty) 0 else r.nextInt(bytes.length)
    r.nextInt(8) match {
      case 0 if bytes.nonEmpty => bytes.updated(at, (bytes(at) ^ (1 << r.nextInt(8))).toByte)
      case 1 if bytes.nonEmpty => bytes.updated(at, r.nextInt(256).toByte)
      case 2 => bytes.take(at)
      case 3 => splice(bytes, at, 0, Array.fill(1 + r.nextInt(8))(r.nextInt(256).toByte))
      case 4 => splice(bytes, at, math.min(1 + r.nextInt(16), bytes.length - at), Array.emptyByteArray)
      case 5 if bytes.nonEmpty =>
        val length = 1 + r.nextInt(math.min(16, bytes.length - at))
        splice(bytes, at, 0, Array.fill(1 + r.nextInt(64))(bytes.slice(at, at + length)).flatten)
      case 6 => splice(bytes, at, 0, special)
      case _ => splice(bytes, at, math.min(special.length, bytes.length - at), special)
    }
  }

  /** `bytes` with the `removed` bytes at `at` replaced by `inserted`. */
  private def splice(bytes: Array[Byte], at: Int, removed: Int, inserted: Array[Byte]): Array[Byte] = {
    val out = new Array[Byte](bytes.length - removed + inserted.length)
    System.arraycopy(bytes, 0, out, 0, at)
    System.arraycopy(inserted, 0, out, at, inserted.length)
    System.arraycopy(bytes, at + removed, out, at + inserted.length, bytes.length - at - removed)
    out
  }

  /** `opener` `depth` times: a value nested that deep when the input goes on. */
  def nested(opener: Array[Byte], depths: Gen[Int] = Gen.oneOf(Gen.choose(1, 100), Gen.choose(1000, 100000))) =
    depths.map { d =>
      val out = new Array[Byte](d * opener.length)
      var i = 0
      while (i < d) { System.arraycopy(opener, 0, out, i * opener.length, opener.length); i += 1 }
      out
    }
}
