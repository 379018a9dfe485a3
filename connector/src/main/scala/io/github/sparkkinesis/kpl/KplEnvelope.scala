// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.kpl

import java.security.MessageDigest

/**
 * The frame the Kinesis Producer Library puts around an [[AggregatedRecord]]: four magic bytes,
 * the protobuf body, and the 16-byte MD5 of that body.
 */
object KplEnvelope {
  val Magic: Array[Byte] = Array(0xf3, 0x89, 0x9a, 0xc2).map(_.toByte)
  val DigestLength = 16
  /** The bytes the frame adds to the protobuf body. */
  val Overhead: Int = Magic.length + DigestLength

  def hasMagic(data: Array[Byte]): Boolean =
    data.length >= Magic.length && Magic.indices.forall(i => data(i) == Magic(i))

  /**
   * The aggregate in `data`. `NotAggregated` without the magic bytes; `Corrupt` with them but a
   * wrong digest or a body that does not parse (the KCL passes those on as ordinary records).
   */
  def open(data: Array[Byte]): Opened =
    if (!hasMagic(data)) NotAggregated
    else if (data.length < Overhead) Corrupt("it is shorter than its frame")
    else {
      val bodyEnd = data.length - DigestLength
      val digest = MessageDigest.getInstance("MD5")
      digest.update(data, Magic.length, bodyEnd - Magic.length)
      val expected = java.util.Arrays.copyOfRange(data, bodyEnd, data.length)
      if (!MessageDigest.isEqual(digest.digest(), expected)) Corrupt("its MD5 does not match its body")
      else {
        try Aggregate(AggregatedRecord.parse(data, Magic.length, bodyEnd))
        catch {
          case e: MalformedAggregateException => Corrupt(s"its body does not parse: ${e.getMessage}")
        }
      }
    }

  def wrap(record: AggregatedRecord): Array[Byte] = {
    val body = record.toByteArray
    val out = new Array[Byte](Overhead + body.length)
    System.arraycopy(Magic, 0, out, 0, Magic.length)
    System.arraycopy(body, 0, out, Magic.length, body.length)
    System.arraycopy(MessageDigest.getInstance("MD5").digest(body), 0, out, Magic.length + body.length, DigestLength)
    out
  }

  sealed trait Opened
  case object NotAggregated extends Opened
  final case class Corrupt(reason: String) extends Opened
  final case class Aggregate(record: AggregatedRecord) extends Opened
}
