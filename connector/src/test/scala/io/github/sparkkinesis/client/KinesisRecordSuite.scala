// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client

import java.nio.charset.StandardCharsets.UTF_8

import org.scalatest.funsuite.AnyFunSuite

class KinesisRecordSuite extends AnyFunSuite {
  test("a record weighs its data plus its partition key in UTF-8 bytes, as Kinesis counts them") {
    val keys =
      Seq("", "ascii-key", "caf\u00e9", "\u65e5\u672c\u8a9e", "smile \ud83d\ude00", "\u007f\u0080\u07ff\u0800\uffff")
    keys.foreach { key =>
      val record = KinesisRecord(key, new Array[Byte](10), "1", 0L)
      assert(record.bytes == 10L + key.getBytes(UTF_8).length, s"key '$key'")
    }
    val random = new scala.util.Random(7)
    (0 until 1000).foreach { _ =>
      val key = Iterator.fill(random.nextInt(40)) {
        val cp = random.nextInt(0x10ffff)
        if (cp >= 0xd800 && cp <= 0xdfff) "x" else new String(Character.toChars(cp))
      }.mkString
      assert(KinesisRecord.utf8Length(key) == key.getBytes(UTF_8).length, s"key of ${key.length} chars")
    }
  }
}
