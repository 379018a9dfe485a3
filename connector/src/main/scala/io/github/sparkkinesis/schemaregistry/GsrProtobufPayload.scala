// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.schemaregistry

import java.io.ByteArrayOutputStream

/**
 * The payload of a Glue Schema Registry Protobuf record (after the header, decompressed): the
 * index of the record's message in [[ProtoFile.indexed]] as an unsigned varint, as AWS's
 * serializer writes it, then the Protobuf message.
 */
object GsrProtobufPayload {

  /** The message index of a payload, and where its message starts. */
  def messageIndex(bytes: Array[Byte], offset: Int, length: Int): (Long, Int) = {
    var result = 0L
    var shift = 0
    var pos = offset
    while (true) {
      if (pos >= offset + length) throw new ProtobufWireException("it ends before its message index does")
      if (shift >= 35) throw new ProtobufWireException("its message index is longer than 5 bytes")
      val b = bytes(pos)
      pos += 1
      result |= (b & 0x7fL) << shift
      if ((b & 0x80) == 0) return (result, pos)
      shift += 7
    }
    (result, pos)
  }

  /** The payload of a message at `index` with the bytes `message`. */
  def write(index: Int, message: Array[Byte]): Array[Byte] = {
    val out = new ByteArrayOutputStream(message.length + 5)
    var v = index
    while ((v & ~0x7f) != 0) { out.write((v & 0x7f) | 0x80); v >>>= 7 }
    out.write(v)
    out.write(message, 0, message.length)
    out.toByteArray
  }
}
