// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench

import java.nio.charset.StandardCharsets.UTF_8
import java.util.concurrent.TimeUnit
import java.util.zip.CRC32

import io.netty.buffer.ByteBuf
import io.netty.channel.Channel
import io.netty.handler.codec.http2.DefaultHttp2DataFrame

/**
 * One SubscribeToShard: pushes SubscribeToShardEvents on an HTTP/2 stream as long as the
 * stream's flow-control window lets it (the channel is writable), so a slow reader slows the
 * pushes down instead of filling memory. Caught up, it looks for new records every 20 ms and
 * sends an empty event every second. It ends after 5 minutes, as Kinesis does. With limits,
 * events are paced to 2 MiB/s per consumer and shard.
 */
final class Subscription(shard: BenchShard, start: Long, contentType: String, limit: Option[(Limits, String)]) {
  import Subscription._

  private var position = start
  private var channel: Channel = _
  private var startedAt = 0L
  private var lastEventAt = 0L
  private var ended = false

  /** Starts pushing on `ch` (on its event loop), after the initial response. */
  def start(ch: Channel): Unit = {
    channel = ch
    startedAt = System.currentTimeMillis()
    val out = ch.alloc().buffer(64)
    EventFrame.write(out, InitialResponse, contentType)(w => { w.startMap(0); w.endMap() })
    ch.write(new DefaultHttp2DataFrame(out))
    pump()
  }

  /** Called again when the stream becomes writable and on each timer tick. */
  def pump(): Unit = {
    if (ended || !channel.isActive) return
    val now = System.currentTimeMillis()
    if (now - startedAt >= Limits.SubscriptionLifeMillis) { end(); return }
    while (channel.isWritable) {
      val budget = limit.map { case (l, key) => math.min(l.readable(key), EventBytes) }.getOrElse(EventBytes)
      val run = if (budget <= 0) RecordRun(shard, position, position, 0, shard.end) else RecordRun.take(shard, position, EventRecords, budget)
      if (run.count == 0) {
        if (now - lastEventAt >= HeartbeatMillis) send(run, now)
        channel.flush()
        channel.eventLoop().schedule((() => pump()): Runnable, IdleMillis, TimeUnit.MILLISECONDS)
        return
      }
      limit.foreach { case (l, key) => l.read(key, run.bytes) }
      send(run, now)
      position = run.until
    }
    channel.flush()
  }

  private def send(run: RecordRun, now: Long): Unit = {
    val out = channel.alloc().buffer(run.encodedSizeHint(DocWriter.isCbor(contentType)) + 128)
    EventFrame.write(out, RecordsEvent, contentType) { w =>
      w.startMap(3)
      run.writeRecords(w)
      w.key("ContinuationSequenceNumber")
      w.sequence(shard.sequencePrefix, run.until - 1)
      w.key("MillisBehindLatest")
      w.long(run.millisBehindLatest(now))
      w.endMap()
    }
    channel.write(new DefaultHttp2DataFrame(out))
    lastEventAt = now
  }

  private def end(): Unit = {
    ended = true
    channel.writeAndFlush(new DefaultHttp2DataFrame(true))
  }
}

object Subscription {
  /** About what Kinesis puts in one event; smaller events would only cost more frames. */
  val EventBytes: Long = 1024 * 1024
  val EventRecords = 10000
  val HeartbeatMillis = 1000L
  val IdleMillis = 20L
  private val InitialResponse = "initial-response"
  private val RecordsEvent = "SubscribeToShardEvent"
}

/**
 * AWS event stream framing: total length, headers length, CRC32 of those 8 bytes, string
 * headers (name length, name, type 7, value length, value), the payload, and the CRC32 of all
 * before it. Integers are big-endian.
 */
object EventFrame {
  private val Prelude = 12

  def write(out: ByteBuf, eventType: String, contentType: String)(payload: DocWriter => Unit): Unit = {
    val begin = out.writerIndex()
    out.writerIndex(begin + Prelude)
    header(out, ":event-type", eventType)
    header(out, ":content-type", contentType)
    header(out, ":message-type", "event")
    val headersLength = out.writerIndex() - begin - Prelude
    payload(DocWriter(contentType, out))
    val total = out.writerIndex() - begin + 4
    out.setInt(begin, total)
    out.setInt(begin + 4, headersLength)
    out.setInt(begin + 8, crc(out, begin, 8))
    out.writeInt(crc(out, begin, total - 4))
  }

  private def header(out: ByteBuf, name: String, value: String): Unit = {
    val n = name.getBytes(UTF_8)
    val v = value.getBytes(UTF_8)
    out.writeByte(n.length)
    out.writeBytes(n)
    out.writeByte(7)
    out.writeShort(v.length)
    out.writeBytes(v)
  }

  private def crc(buf: ByteBuf, from: Int, length: Int): Int = {
    val c = new CRC32()
    c.update(buf.nioBuffer(from, length))
    c.getValue.toInt
  }
}
