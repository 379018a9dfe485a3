// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.wire

import java.nio.ByteBuffer
import java.nio.charset.StandardCharsets.UTF_8
import java.util.Optional
import java.util.concurrent.ConcurrentLinkedQueue

import scala.util.control.NonFatal

import org.apache.spark.internal.Logging
import org.reactivestreams.{Publisher, Subscriber, Subscription}
import software.amazon.awssdk.core.interceptor.{Context, ExecutionAttribute, ExecutionAttributes, ExecutionInterceptor}
import software.amazon.awssdk.http.SdkHttpResponse

import io.github.sparkkinesis.kpl.RangeCheck
import io.github.sparkkinesis.client.{KinesisRecord, KplCounts, UserRecords}

/**
 * SubscribeToShard events' records read by [[SubscribeEventJson]] instead of the SDK's
 * unmarshaller, which was most of the CPU an enhanced fan-out read took (a generic JSON parser,
 * base64 through a `String`, an SDK `Record`, `SdkBytes` and `Instant` per record, on the
 * HTTP client's event loop). The SDK still makes, signs and ends the call and reads every
 * event, exception and error: the [[Interceptor]] takes the records out of each
 * SubscribeToShardEvent message as the answer streams in, puts them aside in the call's
 * [[Decoded]], and passes the SDK the same message with `Records` emptied (checksums computed
 * again). A message it cannot read is passed on whole, and then the SDK reads its records.
 *
 * The SDK delivers the events of one call in the order their messages arrived, so the k-th
 * event it delivers has the k-th records put aside.
 */
private[client] object SubscribeEventDecoding extends Logging {

  /** What each SubscribeToShardEvent of one call held, in order; `None` where the SDK reads the event's records. */
  final class Decoded(rangeCheck: Option[RangeCheck]) {
    private val read = new ConcurrentLinkedQueue[Option[(Seq[KinesisRecord], KplCounts)]]()

    /**
     * The records of the next event the SDK delivers, taken out of its message by the
     * interceptor; `None` when the SDK's event still holds them.
     */
    def next(): Option[(Seq[KinesisRecord], KplCounts)] = {
      val taken = read.poll()
      if (taken == null) None else taken
    }

    /** The message with its records taken out (and kept here), or the message itself if the SDK must read it. */
    private[SubscribeEventDecoding] def rewrite(message: EventStreamFrames.Message): Array[Byte] =
      if (!isRecordsEvent(message)) message.bytes
      else {
        val rewritten =
          try {
            val out = new UserRecords.Expansion(rangeCheck, 0)
            val rest = SubscribeEventJson.split(message.bytes, message.payloadOffset,
              message.payloadOffset + message.payloadLength, out)
            Some((message.withPayload(rest), out.result()))
          } catch {
            // Unreadable, or anything unforeseen: the SDK reads this event as it would have.
            case NonFatal(e) =>
              logDebug(s"A SubscribeToShardEvent is left to the SDK to read: ${e.getMessage}")
              None
          }
        read.add(rewritten.map(_._2))
        rewritten.fold(message.bytes)(_._1)
      }
  }

  /** Set on a SubscribeToShard request: where its interceptor leaves the records. */
  val Attribute = new ExecutionAttribute[Decoded]("io.github.sparkkinesis.SubscribeEventsDecoded")

  private val EventStream = "application/vnd.amazon.eventstream"
  private val MessageType = ":message-type".getBytes(UTF_8)
  private val EventType = ":event-type".getBytes(UTF_8)

  /**
   * A SubscribeToShardEvent: the SDK reads its payload as JSON whatever its `:content-type` says
   * (Kinesis says `application/json`, other endpoints the request's JSON type), and so does this.
   */
  private def isRecordsEvent(message: EventStreamFrames.Message): Boolean =
    "event" == message.stringHeader(MessageType) && "SubscribeToShardEvent" == message.stringHeader(EventType)

  /** Registered on every asynchronous Kinesis client; acts on requests that carry [[Attribute]]. */
  object Interceptor extends ExecutionInterceptor {
    override def modifyAsyncHttpResponseContent(
        context: Context.ModifyHttpResponse, attributes: ExecutionAttributes): Optional[Publisher[ByteBuffer]] = {
      val decoded = attributes.getAttribute(Attribute)
      val body = context.responsePublisher()
      if (decoded == null || !body.isPresent || !readable(context.httpResponse())) body
      else Optional.of(new RecordsAside(body.get, decoded))
    }

    private def readable(response: SdkHttpResponse): Boolean =
      response.isSuccessful &&
        response.firstMatchingHeader("Content-Type").filter(_.trim.equalsIgnoreCase(EventStream)).isPresent &&
        !response.firstMatchingHeader("Content-Encoding").isPresent
  }

  /**
   * The answer's buffers, each passed on as one buffer of the whole messages it completed
   * (possibly none), records taken out: one buffer out for each buffer in, so the SDK's
   * demand passes through unchanged. From a damaged message on, or once the framing cannot be
   * followed, the rest of the answer (and what was held of it) goes to the SDK as it came, for
   * it to fail as it would.
   */
  private[client] final class RecordsAside(
      upstream: Publisher[ByteBuffer], decoded: Decoded) extends Publisher[ByteBuffer] {
    override def subscribe(downstream: Subscriber[_ >: ByteBuffer]): Unit =
      upstream.subscribe(new Subscriber[ByteBuffer] {
        private val splitter = new EventStreamFrames.Splitter
        private var following = true

        override def onSubscribe(s: Subscription): Unit = downstream.onSubscribe(s)
        override def onNext(buffer: ByteBuffer): Unit = downstream.onNext(if (following) rewrite(buffer) else buffer)
        override def onError(t: Throwable): Unit = downstream.onError(t)
        override def onComplete(): Unit = downstream.onComplete()

        private def rewrite(buffer: ByteBuffer): ByteBuffer = {
          var whole: List[Array[Byte]] = Nil
          try {
            splitter.feed(buffer) { bytes =>
              val message = new EventStreamFrames.Message(bytes)
              // The SDK fails the stream at a damaged message: from there on it gets the bytes as they came.
              if (following && !message.checksumMatches) following = false
              whole = (if (following) decoded.rewrite(message) else bytes) :: whole
            }
          } catch {
            case NonFatal(_) => following = false // framing this reader cannot follow
          }
          if (!following) {
            whole = splitter.pending :: whole
            if (buffer.hasRemaining) {
              val rest = new Array[Byte](buffer.remaining)
              buffer.get(rest)
              whole = rest :: whole
            }
          }
          whole match {
            case Nil => ByteBuffer.allocate(0)
            case one :: Nil => ByteBuffer.wrap(one)
            case many =>
              val out = ByteBuffer.allocate(many.iterator.map(_.length).sum)
              many.reverseIterator.foreach(a => out.put(a))
              out.flip()
              out
          }
        }
      })
  }
}
