// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.wire

import java.nio.ByteBuffer
import java.nio.charset.StandardCharsets.UTF_8
import java.util.zip.CRC32

/**
 * The AWS event stream's framing, which a SubscribeToShard answer is made of: each message is
 * its total length and its headers' length (4 bytes each, big-endian), a CRC32 of those 8
 * bytes, the headers, the payload, and a CRC32 of everything before it. A header is a name
 * (1-byte length, UTF-8), a type byte and a value whose size the type gives.
 */
private[client] object EventStreamFrames {
  val PreludeLength = 12
  val CrcLength = 4
  /**
   * The most headers and payload a message holds: the SDK's own event stream decoder refuses
   * more (and so fails the stream), so past them there is nothing for this framing to follow,
   * and no claimed length makes it hold more than the SDK would.
   */
  val MaxHeadersLength: Int = 128 * 1024
  val MaxPayloadLength: Int = 24 * 1024 * 1024

  /** The framing could not be followed (a length or prelude checksum that cannot be right). */
  final class Malformed(why: String) extends RuntimeException(why, null, false, false)

  /** One whole message, its parts located in `bytes`. */
  final class Message(val bytes: Array[Byte]) {
    val headersLength: Int = intAt(bytes, 4)
    def headersOffset: Int = PreludeLength
    def payloadOffset: Int = PreludeLength + headersLength
    def payloadLength: Int = bytes.length - payloadOffset - CrcLength

    /** Whether the message's trailing checksum matches what it holds. */
    def checksumMatches: Boolean = crc(bytes, 0, bytes.length - CrcLength) == intAt(bytes, bytes.length - CrcLength)

    /** The value of the string header `name`, or null when there is none (or the headers cannot be read). */
    def stringHeader(name: Array[Byte]): String = {
      var at = headersOffset
      val end = payloadOffset
      while (at < end) {
        val nameLength = bytes(at) & 0xff
        val nameAt = at + 1
        val typeAt = nameAt + nameLength
        if (typeAt >= end) return null
        val valueAt = typeAt + 1
        val size = bytes(typeAt) match {
          case 0 | 1 => 0 // true, false
          case 2 => 1
          case 3 => 2
          case 4 => 4
          case 5 | 8 => 8 // long, timestamp
          case 6 | 7 => // bytes, string: a 2-byte length first
            if (valueAt + 2 > end) return null
            2 + ((bytes(valueAt) & 0xff) << 8 | (bytes(valueAt + 1) & 0xff))
          case 9 => 16 // uuid
          case _ => return null
        }
        if (valueAt + size > end) return null
        if (bytes(typeAt) == 7 && java.util.Arrays.equals(bytes, nameAt, typeAt, name, 0, name.length)) {
          return new String(bytes, valueAt + 2, size - 2, UTF_8)
        }
        at = valueAt + size
      }
      null
    }

    /** This message with another payload, checksums computed again. */
    def withPayload(payload: Array[Byte]): Array[Byte] = {
      val total = PreludeLength + headersLength + payload.length + CrcLength
      val out = new Array[Byte](total)
      putInt(out, 0, total)
      putInt(out, 4, headersLength)
      putInt(out, 8, crc(out, 0, 8))
      System.arraycopy(bytes, headersOffset, out, PreludeLength, headersLength)
      System.arraycopy(payload, 0, out, payloadOffset, payload.length)
      putInt(out, total - CrcLength, crc(out, 0, total - CrcLength))
      out
    }
  }

  /**
   * Cuts a stream of buffers into whole messages, each copied once into an array of its own
   * length. A message said to hold more than [[MaxHeadersLength]] of headers or
   * [[MaxPayloadLength]] of payload, or a prelude whose checksum does not match, is
   * [[Malformed]] (then [[pending]] gives back what was held).
   */
  final class Splitter {
    private val prelude = new Array[Byte](PreludeLength)
    private var preludeFilled = 0
    private var message: Array[Byte] = _
    private var filled = 0

    /** Reads all of `buffer`, handing each message it completes to `each`, in order. */
    def feed(buffer: ByteBuffer)(each: Array[Byte] => Unit): Unit =
      while (buffer.hasRemaining) {
        if (message == null) {
          val n = math.min(buffer.remaining, PreludeLength - preludeFilled)
          buffer.get(prelude, preludeFilled, n)
          preludeFilled += n
          if (preludeFilled == PreludeLength) start()
        } else {
          val n = math.min(buffer.remaining, message.length - filled)
          buffer.get(message, filled, n)
          filled += n
        }
        if (message != null && filled == message.length) {
          val whole = message
          message = null
          preludeFilled = 0
          each(whole)
        }
      }

    /** The bytes of a message not yet whole. */
    def pending: Array[Byte] =
      if (message == null) java.util.Arrays.copyOf(prelude, preludeFilled)
      else java.util.Arrays.copyOf(message, filled)

    private def start(): Unit = {
      val total = intAt(prelude, 0)
      val headers = intAt(prelude, 4)
      if (crc(prelude, 0, 8) != intAt(prelude, 8))
        throw new Malformed("an event stream prelude checksum does not match")
      if (total < PreludeLength + CrcLength || headers < 0 || headers > MaxHeadersLength ||
        headers > total - PreludeLength - CrcLength || total - PreludeLength - CrcLength - headers > MaxPayloadLength) {
        throw new Malformed(s"an event stream message of $total bytes with $headers bytes of headers")
      }
      message = new Array[Byte](total)
      System.arraycopy(prelude, 0, message, 0, PreludeLength)
      filled = PreludeLength
    }
  }

  private def intAt(bytes: Array[Byte], at: Int): Int =
    (bytes(at) & 0xff) << 24 | (bytes(at + 1) & 0xff) << 16 | (bytes(at + 2) & 0xff) << 8 | (bytes(at + 3) & 0xff)

  private def putInt(bytes: Array[Byte], at: Int, value: Int): Unit = {
    bytes(at) = (value >>> 24).toByte
    bytes(at + 1) = (value >>> 16).toByte
    bytes(at + 2) = (value >>> 8).toByte
    bytes(at + 3) = value.toByte
  }

  private def crc(bytes: Array[Byte], from: Int, length: Int): Int = {
    val c = new CRC32()
    c.update(bytes, from, length)
    c.getValue.toInt
  }
}
