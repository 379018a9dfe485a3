// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.wire

import java.io.ByteArrayOutputStream
import java.nio.ByteBuffer
import java.nio.charset.StandardCharsets.UTF_8
import java.util.zip.CRC32

import org.reactivestreams.{Publisher, Subscriber, Subscription}
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite

import io.github.sparkkinesis.Fuzz
import io.github.sparkkinesis.Fuzz.nested
import io.github.sparkkinesis.client.UserRecords

/**
 * The SubscribeToShard decoders' entry points on hostile and damaged input: the event stream
 * framing ([[EventStreamFrames]]) follows a stream or finds it [[EventStreamFrames.Malformed]];
 * the event reader ([[SubscribeEventJson.split]]) reads an event or finds it
 * [[SubscribeEventJson.Unreadable]]; the interceptor's stream ([[SubscribeEventDecoding.RecordsAside]],
 * which the SDK's HTTP client feeds) passes every buffer on and lets nothing out.
 */
class SubscribeEventFuzzSuite extends AnyFunSuite with Fuzz {

  private def readEvent(bytes: Array[Byte]): String =
    try {
      val out = new UserRecords.Expansion(None, 0)
      SubscribeEventJson.split(bytes, 0, bytes.length, out)
      out.result()
      "read"
    } catch {
      case _: SubscribeEventJson.Unreadable => "unreadable"
    }

  /** The framing, fed in buffers of up to 1 KiB, each message's headers and checksum looked at. */
  private def frames(bytes: Array[Byte]): String =
    try {
      val splitter = new EventStreamFrames.Splitter
      var messages = 0
      buffers(bytes).foreach(b =>
        splitter.feed(b) { whole =>
          val message = new EventStreamFrames.Message(whole)
          message.checksumMatches
          message.stringHeader(":event-type".getBytes(UTF_8))
          message.withPayload(Array.emptyByteArray)
          messages += 1
        })
      splitter.pending
      "followed"
    } catch {
      case _: EventStreamFrames.Malformed => "malformed"
    }

  /** The interceptor's stream between the HTTP client and the SDK: one buffer out for each in, nothing thrown. */
  private def intercepted(bytes: Array[Byte]): String = {
    var upstream: Subscriber[_ >: ByteBuffer] = null
    val publisher = new Publisher[ByteBuffer] {
      override def subscribe(s: Subscriber[_ >: ByteBuffer]): Unit = upstream = s
    }
    val passedOn = new ByteArrayOutputStream()
    var buffersOut = 0
    new SubscribeEventDecoding.RecordsAside(publisher, new SubscribeEventDecoding.Decoded(None))
      .subscribe(new Subscriber[ByteBuffer] {
        override def onSubscribe(s: Subscription): Unit = ()
        override def onNext(b: ByteBuffer): Unit = {
          buffersOut += 1
          val a = new Array[Byte](b.remaining)
          b.get(a)
          passedOn.write(a)
        }
        override def onError(t: Throwable): Unit = ()
        override def onComplete(): Unit = ()
      })
    val in = buffers(bytes)
    in.foreach(b => upstream.onNext(b))
    assert(buffersOut == in.size, "one buffer passed on for each buffer in")
    "passed on"
  }

  /** `bytes` cut into buffers of 1 to 1,024 bytes, at points that depend on the bytes. */
  private def buffers(bytes: Array[Byte]): Seq[ByteBuffer] = {
    val r = new scala.util.Random(java.util.Arrays.hashCode(bytes).toLong)
    Iterator.iterate(0)(at => at + 1 + r.nextInt(1024)).takeWhile(_ < bytes.length).toSeq
      .map(at => ByteBuffer.wrap(bytes, at, math.min(1024, bytes.length - at)).slice())
  }

  private val events: Gen[Array[Byte]] =
    JsonEvents.payload(JsonEvents.event(count = Gen.choose(0, 6))).map(_.getBytes(UTF_8))

  /** JSON openers nested deep, numbers and escapes cut short or huge. */
  private val jsonSpecial: Gen[Array[Byte]] = Gen.oneOf(
    nested("[".getBytes(UTF_8)), nested("{\"a\":".getBytes(UTF_8)), nested("[{\"Records\":".getBytes(UTF_8)),
    Gen.oneOf("1e999999999", "-", "0.", "\"\\u12", "\"\\", "9" * 5000, "1e-999999999", "null", "\"", "\u0000")
      .map(_.getBytes(UTF_8)))

  private def bigEndian(v: Int): Array[Byte] = ByteBuffer.allocate(4).putInt(v).array()

  private def crc(bytes: Array[Byte]): Int = { val c = new CRC32(); c.update(bytes); c.getValue.toInt }

  /** Preludes with a matching checksum and lengths at and past every bound, and header entries that claim too much. */
  private val frameSpecial: Gen[Array[Byte]] = Gen.oneOf(
    Gen.zip(
      Gen.oneOf(0, 15, 16, 17, 1 << 20, 24 << 20, (24 << 20) + (128 << 10) + 16, (24 << 20) + (128 << 10) + 17,
        64 << 20, Int.MaxValue, -1, Int.MinValue),
      Gen.oneOf(0, 1, 255, 128 << 10, (128 << 10) + 1, 1 << 20, Int.MaxValue, -1, Int.MinValue))
      .map { case (total, headers) =>
        val lengths = bigEndian(total) ++ bigEndian(headers)
        lengths ++ bigEndian(crc(lengths))
      },
    Gen.oneOf(Array(0xff, 0x61, 7, 0xff, 0xff), Array(1, 0x61, 6, 0xff), Array(1, 0x61, 9), Array(1, 0x61, 10),
      Array(0)).map(_.map(_.toByte)))

  /** Event messages whose payloads are damaged, framed with checksums that match. */
  private val damagedPayloads: Gen[Array[Byte]] =
    Fuzz.mutated(events, jsonSpecial).flatMap(p => JsonEvents.eventMessage(Gen.const(new String(p, UTF_8))))
      .map(m => Array.concat(JsonEvents.initialResponse, m))

  private val streams: Gen[Array[Byte]] =
    JsonEvents.stream(JsonEvents.payload(JsonEvents.event(count = Gen.choose(0, 4))))

  fuzz("damaged events", Fuzz.mutated(events, jsonSpecial), cases = 1000, seed = 51L)(readEvent)
  fuzz("random bytes as an event", Fuzz.randomBytes, cases = 500, seed = 52L)(readEvent)
  fuzz("damaged event streams' framing", Fuzz.mutated(streams, frameSpecial), cases = 1000, seed = 53L)(frames)
  fuzz("random bytes as an event stream", Fuzz.randomBytes, cases = 500, seed = 54L)(frames)
  fuzz("damaged event streams through the interceptor", Fuzz.mutated(streams, frameSpecial), cases = 500,
    seed = 55L)(intercepted)
  fuzz("events with damaged payloads through the interceptor", damagedPayloads, cases = 500, seed = 56L)(intercepted)

  // ---- inputs that once broke a decoder ----

  private def prelude(total: Int, headers: Int): Array[Byte] = {
    val lengths = bigEndian(total) ++ bigEndian(headers)
    lengths ++ bigEndian(crc(lengths))
  }

  corpus("an unknown field of an event nested 100,000 arrays deep is left to the SDK",
    ("{\"X\":" + "[" * 100000 + "1" + "]" * 100000 + "}").getBytes(UTF_8), "unreadable")(readEvent)
  corpus("an unknown field of a record nested 100,000 objects deep is left to the SDK",
    ("{\"Records\":[{\"X\":" + "{\"a\":" * 100000 + "1" + "}" * 100000 + "}]}").getBytes(UTF_8),
    "unreadable")(readEvent)
  corpus("a message said to be 64 MiB long, more than the SDK takes, is not followed (it took 64 MiB at once)",
    prelude(64 << 20, 0), "malformed")(frames)
  corpus("a message with 1 MiB of headers, more than the SDK takes, is not followed",
    prelude(2 << 20, 1 << 20), "malformed")(frames)
  corpus("a message of the largest payload and headers the SDK takes is followed",
    prelude((24 << 20) + (128 << 10) + 16, 128 << 10), "followed")(frames)
}
