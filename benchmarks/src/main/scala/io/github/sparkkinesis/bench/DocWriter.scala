// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench

import java.nio.charset.StandardCharsets.{US_ASCII, UTF_8}
import java.util.Base64

import io.netty.buffer.ByteBuf

/**
 * Writes a response document straight into a buffer, in the encoding the client asked for:
 * CBOR (the Java SDK's default) or JSON (aws.cborEnabled=false, boto3). Maps and arrays give
 * their size up front, as CBOR's definite lengths need; JSON ignores it. Nothing is built in
 * between, which is what lets one core serve hundreds of thousands of records a second.
 */
sealed trait DocWriter {
  def out: ByteBuf
  def startMap(size: Int): Unit
  def endMap(): Unit
  def startArray(size: Int): Unit
  def endArray(): Unit
  def key(name: String): Unit
  def string(value: String): Unit
  /** A sequence number (see [[Sequence]]) written without building its string. */
  def sequence(prefix: Array[Byte], position: Long): Unit
  def long(value: Long): Unit
  def blob(value: Array[Byte]): Unit
  def timestamp(epochMillis: Long): Unit
  /** A value encoded ahead of time, with a sequence number's digits written between its two parts. */
  def template(before: Array[Byte], prefix: Array[Byte], position: Long, after: Array[Byte]): Unit
}

object DocWriter {
  val CborType = "application/x-amz-cbor-1.1"
  val JsonType = "application/x-amz-json-1.1"

  def isCbor(contentType: String): Boolean = contentType != null && contentType.contains("cbor")

  def apply(contentType: String, out: ByteBuf): DocWriter = if (isCbor(contentType)) new Cbor(out) else new Json(out)
}

final class Cbor(val out: ByteBuf) extends DocWriter {
  private val digits = new Array[Byte](Sequence.Width)

  private def head(major: Int, length: Long): Unit = {
    val m = major << 5
    if (length < 24) out.writeByte(m | length.toInt)
    else if (length < 0x100) { out.writeByte(m | 24); out.writeByte(length.toInt) }
    else if (length < 0x10000) { out.writeByte(m | 25); out.writeShort(length.toInt) }
    else if (length < 0x100000000L) { out.writeByte(m | 26); out.writeInt(length.toInt) }
    else { out.writeByte(m | 27); out.writeLong(length) }
  }

  def startMap(size: Int): Unit = head(5, size)
  def endMap(): Unit = ()
  def startArray(size: Int): Unit = head(4, size)
  def endArray(): Unit = ()
  def key(name: String): Unit = string(name)

  def string(value: String): Unit = {
    val bytes = value.getBytes(UTF_8)
    head(3, bytes.length)
    out.writeBytes(bytes)
  }

  def sequence(prefix: Array[Byte], position: Long): Unit = {
    Sequence.write(prefix, position, digits, 0)
    head(3, Sequence.Width)
    out.writeBytes(digits)
  }

  def long(value: Long): Unit = if (value >= 0) head(0, value) else head(1, -1 - value)

  def blob(value: Array[Byte]): Unit = {
    head(2, value.length)
    out.writeBytes(value)
  }

  /** Tag 1 (epoch time) over milliseconds, as the SDK writes and reads CBOR timestamps. */
  def timestamp(epochMillis: Long): Unit = {
    out.writeByte(0xc1)
    long(epochMillis)
  }

  def template(before: Array[Byte], prefix: Array[Byte], position: Long, after: Array[Byte]): Unit = {
    Sequence.write(prefix, position, digits, 0)
    out.writeBytes(before)
    out.writeBytes(digits)
    out.writeBytes(after)
  }
}

final class Json(val out: ByteBuf) extends DocWriter {
  private var needComma = false
  private var afterKey = false
  private val digits = new Array[Byte](Sequence.Width)

  private def separate(): Unit = {
    if (afterKey) afterKey = false
    else if (needComma) out.writeByte(',')
  }

  def startMap(size: Int): Unit = { separate(); out.writeByte('{'); needComma = false }
  def endMap(): Unit = { out.writeByte('}'); needComma = true }
  def startArray(size: Int): Unit = { separate(); out.writeByte('['); needComma = false }
  def endArray(): Unit = { out.writeByte(']'); needComma = true }

  def key(name: String): Unit = {
    string(name)
    out.writeByte(':')
    afterKey = true
  }

  def string(value: String): Unit = {
    separate()
    out.writeByte('"')
    if (value.forall(c => c >= 0x20 && c < 0x80 && c != '"' && c != '\\')) out.writeCharSequence(value, US_ASCII)
    else value.foreach {
      case '"' => out.writeBytes("\\\"".getBytes(US_ASCII))
      case '\\' => out.writeBytes("\\\\".getBytes(US_ASCII))
      case c if c < 0x20 => out.writeBytes(f"\\u${c.toInt}%04x".getBytes(US_ASCII))
      case c if c < 0x80 => out.writeByte(c)
      case c => out.writeBytes(c.toString.getBytes(UTF_8))
    }
    out.writeByte('"')
    needComma = true
  }

  def sequence(prefix: Array[Byte], position: Long): Unit = {
    separate()
    Sequence.write(prefix, position, digits, 0)
    out.writeByte('"')
    out.writeBytes(digits)
    out.writeByte('"')
    needComma = true
  }

  def long(value: Long): Unit = {
    separate()
    out.writeCharSequence(value.toString, US_ASCII)
    needComma = true
  }

  def blob(value: Array[Byte]): Unit = {
    separate()
    out.writeByte('"')
    out.writeBytes(Base64.getEncoder.encode(value))
    out.writeByte('"')
    needComma = true
  }

  /** Epoch seconds with a fraction, as the JSON protocol carries timestamps. */
  def timestamp(epochMillis: Long): Unit = {
    separate()
    val fraction = epochMillis % 1000
    out.writeCharSequence(s"${epochMillis / 1000}.${if (fraction < 10) "00" else if (fraction < 100) "0" else ""}$fraction", US_ASCII)
    needComma = true
  }

  def template(before: Array[Byte], prefix: Array[Byte], position: Long, after: Array[Byte]): Unit = {
    separate()
    Sequence.write(prefix, position, digits, 0)
    out.writeBytes(before)
    out.writeBytes(digits)
    out.writeBytes(after)
    needComma = true
  }
}
