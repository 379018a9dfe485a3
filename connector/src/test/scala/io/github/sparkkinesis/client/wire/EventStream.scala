// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.wire

import java.io.{ByteArrayOutputStream, DataOutputStream}
import java.nio.charset.StandardCharsets.UTF_8
import java.util.UUID
import java.util.zip.CRC32

/**
 * AWS event stream messages as the property tests write them, with headers of every type the
 * framing defines (not only the string headers Kinesis sends).
 */
object EventStream {
  sealed trait Header
  final case class BoolHeader(value: Boolean) extends Header
  final case class ByteHeader(value: Byte) extends Header
  final case class ShortHeader(value: Short) extends Header
  final case class IntHeader(value: Int) extends Header
  final case class LongHeader(value: Long) extends Header
  final case class BytesHeader(value: Array[Byte]) extends Header
  final case class StringHeader(value: String) extends Header
  final case class TimestampHeader(millis: Long) extends Header
  final case class UuidHeader(value: UUID) extends Header

  /** A message: prelude (total and headers length, their CRC32), headers, payload, CRC32 of all before it. */
  def message(headers: Seq[(String, Header)], payload: Array[Byte]): Array[Byte] = {
    val headerBytes = new ByteArrayOutputStream()
    val h = new DataOutputStream(headerBytes)
    headers.foreach { case (name, header) =>
      val n = name.getBytes(UTF_8)
      h.writeByte(n.length); h.write(n)
      header match {
        case BoolHeader(v) => h.writeByte(if (v) 0 else 1)
        case ByteHeader(v) => h.writeByte(2); h.writeByte(v)
        case ShortHeader(v) => h.writeByte(3); h.writeShort(v)
        case IntHeader(v) => h.writeByte(4); h.writeInt(v)
        case LongHeader(v) => h.writeByte(5); h.writeLong(v)
        case BytesHeader(v) => h.writeByte(6); h.writeShort(v.length); h.write(v)
        case StringHeader(v) =>
          val s = v.getBytes(UTF_8)
          h.writeByte(7); h.writeShort(s.length); h.write(s)
        case TimestampHeader(v) => h.writeByte(8); h.writeLong(v)
        case UuidHeader(v) =>
          h.writeByte(9); h.writeLong(v.getMostSignificantBits); h.writeLong(v.getLeastSignificantBits)
      }
    }
    val headersArray = headerBytes.toByteArray
    val total = 12 + headersArray.length + payload.length + 4
    val bytes = new ByteArrayOutputStream(total)
    val out = new DataOutputStream(bytes)
    out.writeInt(total)
    out.writeInt(headersArray.length)
    out.writeInt(crc(bytes.toByteArray))
    out.write(headersArray)
    out.write(payload)
    out.writeInt(crc(bytes.toByteArray))
    bytes.toByteArray
  }

  def event(eventType: String, payload: String, extra: Seq[(String, Header)] = Nil): Array[Byte] =
    message(Seq(":message-type" -> StringHeader("event"), ":event-type" -> StringHeader(eventType),
        ":content-type" -> StringHeader("application/json")) ++ extra, payload.getBytes(UTF_8))

  private def crc(bytes: Array[Byte]): Int = {
    val c = new CRC32()
    c.update(bytes)
    c.getValue.toInt
  }
}
