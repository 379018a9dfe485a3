// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.sdk

import java.util.concurrent.atomic.AtomicBoolean

import scala.jdk.CollectionConverters._

import org.reactivestreams.{Subscriber, Subscription}
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration
import software.amazon.awssdk.core.async.SdkPublisher
import software.amazon.awssdk.services.kinesis.KinesisAsyncClient
import software.amazon.awssdk.services.kinesis.model.{
  SubscribeToShardEvent, SubscribeToShardEventStream, SubscribeToShardRequest, SubscribeToShardResponse,
  SubscribeToShardResponseHandler
}

import io.github.sparkkinesis.kpl.RangeCheck
import io.github.sparkkinesis.offsets.ShardPosition
import io.github.sparkkinesis.client.{
  CredentialsConfig, KinesisRecord, KplCounts, ShardEvent, SubscriptionHandle, SubscriptionTransport
}
import io.github.sparkkinesis.client.failures.CredentialsInErrors
import io.github.sparkkinesis.client.wire.SubscribeEventDecoding

/**
 * [[SubscriptionTransport]] on the AWS SDK v2 async client (Netty, HTTP/2). `client` is asked
 * for at every call, so a client the JVM's cache closed while idle is built again. Events'
 * records are read by [[SubscribeEventDecoding]], or with `sdkDecoding` by the SDK alone. Its
 * failures are shown with the `credentials` of the connection masked ([[CredentialsInErrors]]).
 */
final class SdkSubscriptionTransport(client: () => KinesisAsyncClient, credentials: CredentialsConfig,
    sdkDecoding: Boolean = false) extends SubscriptionTransport {

  override def shown(failure: Throwable): Throwable = CredentialsInErrors.sanitize(failure, credentials)

  override def subscribe(consumerArn: String, shardId: String, start: ShardPosition, rangeCheck: Option[RangeCheck],
      subscriber: Subscriber[ShardEvent]): SubscriptionHandle = {
    val decoded = new SubscribeEventDecoding.Decoded(rangeCheck)
    val request = SdkSubscriptionTransport.request(consumerArn, shardId, start, decoded, sdkDecoding)
    val once = new TerminatingOnce(subscriber)
    val handler = new SubscribeToShardResponseHandler {
      override def responseReceived(response: SubscribeToShardResponse): Unit = ()
      override def onEventStream(publisher: SdkPublisher[SubscribeToShardEventStream]): Unit =
        publisher.filter(classOf[SubscribeToShardEvent])
          .map[ShardEvent](e => SdkSubscriptionTransport.toShardEvent(e, decoded.next(), rangeCheck))
          .subscribe(once)
      override def exceptionOccurred(t: Throwable): Unit = once.fail(t)
      // The end is signalled by the event publisher's onComplete, after its last event.
      override def complete(): Unit = ()
    }
    val future = client().subscribeToShard(request, handler)
    future.whenComplete { (_, t) =>
      if (t != null) once.fail(t) else once.completeIfNoStream()
    }
    () => {
      once.cancel()
      future.cancel(true)
    }
  }
}

object SdkSubscriptionTransport {
  /** A SubscribeToShard request whose events' records are read into `decoded`, or by the SDK alone with `sdkDecoding`. */
  private[client] def request(consumerArn: String, shardId: String, start: ShardPosition,
      decoded: SubscribeEventDecoding.Decoded, sdkDecoding: Boolean): SubscribeToShardRequest =
    SubscribeToShardRequest.builder()
      .consumerARN(consumerArn)
      .shardId(shardId)
      .startingPosition(SdkPositions.startingPosition(start))
      .overrideConfiguration { (o: AwsRequestOverrideConfiguration.Builder) =>
        if (!sdkDecoding) o.putExecutionAttribute(SubscribeEventDecoding.Attribute, decoded)
      }
      .build()

  /** The event, with the records [[SubscribeEventDecoding]] took out of it, or else those the SDK read. */
  private[client] def toShardEvent(e: SubscribeToShardEvent, readAside: Option[(Seq[KinesisRecord], KplCounts)],
      rangeCheck: Option[RangeCheck]): ShardEvent = {
    val (records, kpl) = readAside.getOrElse(SdkRecords.toKinesisRecords(e.records(), rangeCheck))
    ShardEvent(
      records = records,
      continuationSequenceNumber = Option(e.continuationSequenceNumber()).filter(_.nonEmpty),
      millisBehindLatest = Option(e.millisBehindLatest()).map(_.longValue).getOrElse(0L),
      childShards = Option(e.childShards()).map(_.asScala.map(_.shardId()).toSeq).getOrElse(Nil),
      kpl = kpl)
  }
}

/**
 * Passes a publisher's signals on, and makes sure the subscriber hears exactly one end, as the
 * SDK may report one failure both to the event stream and to the response handler, and may
 * fail before any event stream exists.
 */
private final class TerminatingOnce(downstream: Subscriber[ShardEvent]) extends Subscriber[ShardEvent] {
  private val subscribed = new AtomicBoolean(false)
  private val ended = new AtomicBoolean(false)
  @volatile private var upstream: Subscription = _
  @volatile private var cancelled = false

  override def onSubscribe(s: Subscription): Unit = {
    if (subscribed.compareAndSet(false, true)) {
      upstream = s
      downstream.onSubscribe(s)
      if (cancelled) s.cancel()
    } else {
      s.cancel() // Reactive Streams rule 2.5: a second subscription is refused.
    }
  }

  override def onNext(event: ShardEvent): Unit = if (!ended.get) downstream.onNext(event)

  override def onError(t: Throwable): Unit = fail(t)

  override def onComplete(): Unit = if (ended.compareAndSet(false, true)) downstream.onComplete()

  def fail(t: Throwable): Unit = if (ended.compareAndSet(false, true)) {
    ensureSubscribed()
    downstream.onError(t)
  }

  /** The call succeeded without an event stream (it should not): treat it as the end. */
  def completeIfNoStream(): Unit = if (!subscribed.get && ended.compareAndSet(false, true)) {
    ensureSubscribed()
    downstream.onComplete()
  }

  def cancel(): Unit = {
    cancelled = true
    val s = upstream
    if (s != null) s.cancel()
  }

  private def ensureSubscribed(): Unit = if (subscribed.compareAndSet(false, true)) {
    downstream.onSubscribe(new Subscription {
      override def request(n: Long): Unit = ()
      override def cancel(): Unit = ()
    })
  }
}
