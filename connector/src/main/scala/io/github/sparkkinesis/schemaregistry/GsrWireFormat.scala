// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.schemaregistry

import java.io.ByteArrayOutputStream
import java.nio.ByteBuffer
import java.util.UUID
import java.util.zip.{DataFormatException, Deflater, Inflater}

/**
 * The AWS Glue Schema Registry record layout, as its serializers write it: one header version
 * byte (3), one compression byte (0: none, 5: zlib), the 16 bytes of the writer's schema
 * version id, then the payload in the schema's format (zlib-compressed when the second byte
 * says so).
 */
object GsrWireFormat {
  val HeaderVersion: Byte = 3
  val NoCompression: Byte = 0
  val ZlibCompression: Byte = 5
  val HeaderLength: Int = 18

  /** The payload of a record: `bytes(offset until offset + length)`, no longer compressed. */
  final class Payload(val versionId: UUID, val bytes: Array[Byte], val offset: Int, val length: Int)

  /** Splits a record into its schema version id and its payload; a record that is not one fails with why. */
  def read(record: Array[Byte]): Payload = {
    if (record.length < HeaderLength)
      throw new MalformedRecordException(s"it has ${record.length} bytes, fewer than the $HeaderLength of the header")
    if (record(0) != HeaderVersion)
      throw new MalformedRecordException(
        s"its first byte is ${record(0) & 0xff}, not the header version $HeaderVersion")
    val buffer = ByteBuffer.wrap(record, 2, 16)
    val versionId = new UUID(buffer.getLong, buffer.getLong)
    record(1) match {
      case NoCompression => new Payload(versionId, record, HeaderLength, record.length - HeaderLength)
      case ZlibCompression =>
        val inflated = inflate(record, HeaderLength, versionId)
        new Payload(versionId, inflated, 0, inflated.length)
      case other =>
        throw new MalformedRecordException(
          s"its compression byte is ${other & 0xff}; allowed: $NoCompression (none) or $ZlibCompression (zlib)")
    }
  }

  /** A record of `payload` under `versionId`, zlib-compressed when `compress`. */
  def write(versionId: UUID, payload: Array[Byte], compress: Boolean): Array[Byte] = {
    val body = if (compress) deflate(payload) else payload
    val out = ByteBuffer.allocate(HeaderLength + body.length)
    out.put(HeaderVersion).put(if (compress) ZlibCompression else NoCompression)
    out.putLong(versionId.getMostSignificantBits).putLong(versionId.getLeastSignificantBits)
    out.put(body)
    out.array()
  }

  private def inflate(record: Array[Byte], from: Int, versionId: UUID): Array[Byte] = {
    val inflater = new Inflater()
    try {
      inflater.setInput(record, from, record.length - from)
      val out = new ByteArrayOutputStream(math.max(64, (record.length - from) * 4))
      val chunk = new Array[Byte](8192)
      while (!inflater.finished()) {
        val n = inflater.inflate(chunk)
        if (n == 0 && (inflater.needsInput() || inflater.needsDictionary()))
          throw new MalformedRecordException(s"its zlib payload (schema version $versionId) ends early")
        out.write(chunk, 0, n)
      }
      out.toByteArray
    } catch {
      case e: DataFormatException =>
        throw new MalformedRecordException(s"its zlib payload (schema version $versionId) is corrupt: ${e.getMessage}")
    } finally inflater.end()
  }

  private def deflate(payload: Array[Byte]): Array[Byte] = {
    val deflater = new Deflater()
    try {
      deflater.setInput(payload)
      deflater.finish()
      val out = new ByteArrayOutputStream(payload.length / 2 + 64)
      val chunk = new Array[Byte](8192)
      while (!deflater.finished()) out.write(chunk, 0, deflater.deflate(chunk))
      out.toByteArray
    } finally deflater.end()
  }
}

/** A record that is not in the Glue Schema Registry layout; the message says what is wrong with it. */
final class MalformedRecordException(reason: String)
  extends RuntimeException(s"The record is not a Glue Schema Registry record: $reason")
