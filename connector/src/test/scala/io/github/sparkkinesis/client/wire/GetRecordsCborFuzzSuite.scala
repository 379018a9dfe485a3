// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.wire

import java.io.ByteArrayInputStream

import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite

import io.github.sparkkinesis.Fuzz
import io.github.sparkkinesis.Fuzz.{nested, unhex}
import io.github.sparkkinesis.client.UserRecords

/**
 * The GetRecords CBOR decoder's entry point ([[GetRecordsCbor.split]], as
 * [[GetRecordsDecoding]] calls it) on hostile and damaged answers: it reads the answer, or the
 * answer is [[GetRecordsCbor.Unreadable]] and left to the SDK; nothing else gets out.
 */
class GetRecordsCborFuzzSuite extends AnyFunSuite with Fuzz {

  private val pool = new PiecePool(16, 1 << 16)

  private def decode(bytes: Array[Byte]): String = {
    val body = BodyPieces.read(new ByteArrayInputStream(bytes), bytes.length.toLong, pool)
    try {
      val out = new UserRecords.Expansion(None, 0)
      GetRecordsCbor.split(body, out)
      out.result()
      "read"
    } catch {
      case _: GetRecordsCbor.Unreadable => "unreadable"
    }
  }

  private val answers: Gen[Array[Byte]] = for {
    answer <- CborAnswers.answer(CborAnswers.Any, count = Gen.choose(0, 6))
    widen <- Gen.frequency(2 -> Gen.const(0L), 1 -> Gen.long)
  } yield Cbor.encode(answer, widen)

  private def bytes(values: Int*): Array[Byte] = values.map(_.toByte).toArray

  /** Heads of strings, arrays and maps with huge or negative-looking lengths, and openers nested deep. */
  private val special: Gen[Array[Byte]] = Gen.oneOf(
    Gen.zip(Gen.choose(2, 5),
      Gen.oneOf(
        bytes(27, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff), bytes(27, 0x80, 0, 0, 0, 0, 0, 0, 0),
        bytes(27, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff), bytes(26, 0xff, 0xff, 0xff, 0xff),
        bytes(26, 0x7f, 0xff, 0xff, 0xff), bytes(31)))
      .map { case (major, head) => (major << 5 | head(0)).toByte +: head.tail },
    nested(bytes(0x81)), nested(bytes(0x9f)), nested(bytes(0xa1, 0x61, 0x61)), nested(bytes(0xc1)),
    nested(bytes(0xbf, 0x61, 0x61)), Gen.const(bytes(0xff)), Gen.const(bytes(0xfc)))

  fuzz("damaged GetRecords answers", Fuzz.mutated(answers, special), cases = 1000, seed = 41L)(decode)
  fuzz("random bytes", Fuzz.randomBytes, cases = 1000, seed = 42L)(decode)
  fuzz("random bytes in a map", Fuzz.randomBytes.map(b => bytes(0xbf) ++ b), cases = 1000, seed = 43L)(decode)

  // ---- inputs that once broke the decoder ----

  /** `{"Records": [<record>]}`, the record's bytes as given. */
  private def answerWithRecord(record: String): Array[Byte] = unhex("a1 67 5265636f726473 81" + record)

  corpus("an unknown field nested 100,000 arrays deep is left to the SDK (it overflowed the stack)",
    answerWithRecord("a2 64 44617461 41 01 61 58" + "81" * 100000 + "00"), "unreadable")(decode)
  corpus("an unknown field nested 100,000 maps deep is left to the SDK (it overflowed the stack)",
    answerWithRecord("a2 64 44617461 41 01 61 58" + "a1 61 61" * 100000 + "00"), "unreadable")(decode)
  corpus("a record map of 2^63 fields is left to the SDK (read as none: a record without key or sequence number)",
    answerWithRecord("bb 8000000000000000"), "unreadable")(decode)
  corpus("a record map of 2^64 - 1 fields is left to the SDK (read as a map of indefinite length)",
    answerWithRecord("bb ffffffffffffffff 64 44617461 41 01 ff"), "unreadable")(decode)
  corpus("an unknown array of 2^63 items is left to the SDK (read as empty)",
    answerWithRecord("a2 64 44617461 41 01 61 58 9b 8000000000000000"), "unreadable")(decode)
  corpus("a Records array of 2^64 - 1 items is left to the SDK (read as one of indefinite length)",
    unhex("a1 67 5265636f726473 9b ffffffffffffffff a1 64 44617461 41 01 ff"), "unreadable")(decode)
  corpus("an unsigned integer of indefinite length is left to the SDK",
    answerWithRecord("a2 64 44617461 41 01 61 58 1f"),
    "unreadable")(decode)
  corpus("a break where an item belongs is left to the SDK", answerWithRecord("a2 64 44617461 41 01 61 58 ff"),
    "unreadable")(decode)
  corpus("a reserved simple value is left to the SDK", answerWithRecord("a2 64 44617461 41 01 61 58 fc"),
    "unreadable")(decode)
}
