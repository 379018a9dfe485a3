// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.kpl

import java.io.ByteArrayOutputStream

/** The body of a KPL aggregate does not follow the protobuf wire format. */
final class MalformedAggregateException(message: String) extends RuntimeException(message)

/**
 * Just enough of the protobuf wire format for [[AggregatedRecord]]: varints and
 * length-delimited fields, and skipping the other wire types, so a field added by a newer
 * producer does not make an aggregate unreadable.
 */
private[kpl] final class ProtoReader(bytes: Array[Byte], from: Int, until: Int) {
  private var at = from

  def hasMore: Boolean = at < until

  /** The next field's tag: field number and wire type. */
  def tag(): (Int, Int) = {
    val key = varint()
    ((key >>> 3).toInt, (key & 7).toInt)
  }

  def varint(): Long = {
    var result = 0L
    var shift = 0
    while (true) {
      if (at >= until) throw new MalformedAggregateException("a varint runs past the end")
      if (shift >= 64) throw new MalformedAggregateException("a varint is longer than 10 bytes")
      val b = bytes(at)
      at += 1
      result |= (b & 0x7fL) << shift
      if ((b & 0x80) == 0) return result
      shift += 7
    }
    throw new IllegalStateException("unreachable")
  }

  /** A length-delimited field, as a reader over its bytes. */
  def message(): ProtoReader = {
    val (start, end) = span()
    new ProtoReader(bytes, start, end)
  }

  def byteArray(): Array[Byte] = {
    val (start, end) = span()
    java.util.Arrays.copyOfRange(bytes, start, end)
  }

  def string(): String = new String(byteArray(), java.nio.charset.StandardCharsets.UTF_8)

  def skip(wireType: Int): Unit = wireType match {
    case ProtoWire.Varint => varint()
    case ProtoWire.Fixed64 => advance(8)
    case ProtoWire.LengthDelimited => span()
    case ProtoWire.Fixed32 => advance(4)
    case other => throw new MalformedAggregateException(s"wire type $other is not supported")
  }

  private def span(): (Int, Int) = {
    val length = varint()
    if (length < 0 || length > until - at) throw new MalformedAggregateException("a field runs past the end")
    val start = at
    at += length.toInt
    (start, at)
  }

  private def advance(n: Int): Unit = {
    if (n > until - at) throw new MalformedAggregateException("a field runs past the end")
    at += n
  }
}

private[kpl] final class ProtoWriter {
  private val out = new ByteArrayOutputStream()

  def varintField(field: Int, value: Long): this.type = {
    varint((field.toLong << 3) | ProtoWire.Varint)
    varint(value)
    this
  }

  def bytesField(field: Int, value: Array[Byte]): this.type = {
    varint((field.toLong << 3) | ProtoWire.LengthDelimited)
    varint(value.length.toLong)
    out.write(value)
    this
  }

  def toByteArray: Array[Byte] = out.toByteArray

  private def varint(value: Long): Unit = {
    var v = value
    while ((v & ~0x7fL) != 0) {
      out.write(((v & 0x7f) | 0x80).toInt)
      v >>>= 7
    }
    out.write(v.toInt)
  }
}

private[kpl] object ProtoWire {
  val Varint = 0
  val Fixed64 = 1
  val LengthDelimited = 2
  val Fixed32 = 5

  /** How many bytes a varint of `value` takes. */
  def varintSize(value: Long): Int = {
    var v = value
    var n = 1
    while ((v & ~0x7fL) != 0) { v >>>= 7; n += 1 }
    n
  }
}
