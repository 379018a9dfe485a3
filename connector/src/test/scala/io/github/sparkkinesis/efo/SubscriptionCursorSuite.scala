// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.efo

import java.io.IOException
import javax.net.ssl.SSLHandshakeException

import scala.collection.mutable
import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers
import software.amazon.awssdk.awscore.exception.AwsErrorDetails
import software.amazon.awssdk.core.exception.SdkClientException
import software.amazon.awssdk.services.kinesis.model.{
  AccessDeniedException, InternalFailureException, KinesisException, LimitExceededException, ResourceInUseException,
  ResourceNotFoundException
}

import io.github.sparkkinesis.FakeClock
import io.github.sparkkinesis.client.{CredentialsConfig, KinesisRecord}
import io.github.sparkkinesis.errors.KinesisConnectorException
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}

class SubscriptionCursorSuite extends AnyFunSuite with Matchers {

  private val shard = ShardKey("orders", "shardId-000000000000")
  private val arn = "arn:aws:kinesis:us-east-1:000000000000:stream/orders/consumer/c:1"

  private final class Setup(
      recordsPerEvent: Int = 3,
      eventsPerSubscription: Int = Int.MaxValue,
      heartbeats: Boolean = true,
      settings: SubscriptionSettings = SubscriptionSettings(maxBufferedEvents = 4),
      credentials: CredentialsConfig = CredentialsConfig.DefaultChain) {
    val clock = new FakeClock
    val transport = new FakeSubscriptionTransport(clock, recordsPerEvent, eventsPerSubscription, heartbeats,
      credentials)
    val limiter = new SubscribeLimiter(SubscribeLimiter.MinSpacingMs, clock)
    val metrics = new EfoMetrics

    def cursor(start: ShardPosition = ShardPosition.TrimHorizon): SubscriptionCursor =
      new SubscriptionCursor(transport, shard, arn, start, settings, "endpoint fake", limiter, metrics, clock,
        new Random(1))

    /** Fetches until `n` records came (or 200 fetches); returns them. */
    def read(cursor: SubscriptionCursor, n: Int): Seq[KinesisRecord] = {
      val got = mutable.ArrayBuffer.empty[KinesisRecord]
      var fetches = 0
      while (got.size < n && !cursor.isEnded && fetches < 200) {
        got ++= cursor.fetch(1000).records
        fetches += 1
      }
      got.toSeq
    }

    def gapsMillis: Seq[Long] = transport.calls.map(_.atMillis).toSeq.sliding(2).collect { case Seq(a: Long, b: Long) =>
      b - a
    }.toSeq
  }

  test("reads every record in order from TRIM_HORIZON; the position is the last record handed out") {
    val s = new Setup()
    val seqs = s.transport.put(10)
    val cursor = s.cursor()
    cursor.position shouldBe ShardPosition.TrimHorizon
    val records = s.read(cursor, 10)
    records.map(_.sequenceNumber) shouldBe seqs
    cursor.position shouldBe ShardPosition.AfterSequence(seqs.last)
    cursor.isEnded shouldBe false
    s.transport.calls should have size 1
    s.metrics.liveSubscriptions shouldBe 1
    cursor.close()
    s.metrics.liveSubscriptions shouldBe 0
    s.transport.sessions.head.cancelled shouldBe true
  }

  test("a caught-up shard answers with an empty batch, millisBehindLatest 0; before any event it is unknown") {
    val s = new Setup(heartbeats = false)
    val cursor = s.cursor()
    val nothing = cursor.fetch(500)
    nothing.records shouldBe empty
    nothing.millisBehindLatest shouldBe SubscriptionCursor.UnknownMillisBehind
    s.clock.totalSleptMillis shouldBe 500L // It waited maxWaitMs (in fake time) for an event.
    s.transport.put(2)
    s.transport.pump()
    val batch = cursor.fetch(500)
    batch.records should have size 2
    batch.millisBehindLatest shouldBe 0L
    cursor.millisBehindLatest shouldBe Some(0L)
  }

  test("starts AFTER_SEQUENCE_NUMBER and AT_TIMESTAMP where asked") {
    val s = new Setup()
    val seqs = s.transport.put(10)
    s.read(s.cursor(ShardPosition.AfterSequence(seqs(6))), 3).map(_.sequenceNumber) shouldBe seqs.drop(7)
    val fromTime = s.cursor(ShardPosition.AtTimestamp(1593105825000L + 5))
    s.read(fromTime, 5).map(_.sequenceNumber) shouldBe seqs.drop(5)
    fromTime.position shouldBe ShardPosition.AfterSequence(seqs.last)
  }

  test("a subscription that ends (5 minutes) is renewed from the continuation; nothing lost or repeated") {
    val s = new Setup(recordsPerEvent = 2, eventsPerSubscription = 3)
    val seqs = s.transport.put(40)
    val cursor = s.cursor()
    s.read(cursor, 40).map(_.sequenceNumber) shouldBe seqs
    val calls = s.transport.calls
    calls.size should be >= 6
    calls.head.start shouldBe ShardPosition.TrimHorizon
    // Each renewal starts after the last record the previous subscriptions delivered.
    calls.tail.foreach(_.start shouldBe a[ShardPosition.AfterSequence])
    calls.map(_.start).distinct should have size calls.size
    cursor.subscriptions shouldBe calls.size
    s.metrics.resubscriptions shouldBe calls.size - 1
    s.metrics.subscribeCalls shouldBe calls.size
  }

  test("a subscription whose buffer fills while not read is ended; the next resumes after the last record taken") {
    val s = new Setup(heartbeats = false) // 4 events of 3 records fill the buffer.
    val seqs = s.transport.put(100)
    val cursor = s.cursor()
    cursor.fetch(1000).records should have size 12
    s.transport.sessions.head.cancelled shouldBe true // Kinesis pushes on; the SDK would keep it all.
    s.transport.sessions.head.delivered shouldBe 4
    s.read(cursor, 88).map(_.sequenceNumber) shouldBe seqs.drop(12)
    val calls = s.transport.calls
    calls.size shouldBe 9
    calls.tail.zipWithIndex.foreach { case (call, i) =>
      call.start shouldBe ShardPosition.AfterSequence(seqs(12 * (i + 1) - 1))
    }
    s.transport.sessions.map(_.delivered).max shouldBe 4
    s.gapsMillis.foreach(_ should be >= SubscribeLimiter.MinSpacingMs)
  }

  test("SubscribeToShard calls for one shard and consumer are at least 5 s apart, however fast they end") {
    val s = new Setup(recordsPerEvent = 1, eventsPerSubscription = 1)
    s.transport.put(12)
    s.read(s.cursor(), 12) should have size 12
    s.transport.calls.size should be >= 12
    all(s.gapsMillis) should be >= 5000L
  }

  test("the 5 s spacing is JVM-wide: a second reader of the same shard and consumer waits its turn") {
    val s = new Setup(recordsPerEvent = 1, eventsPerSubscription = 1)
    s.transport.put(6)
    val (a, b) = (s.cursor(), s.cursor())
    (1 to 10).foreach { _ =>
      a.fetch(3000)
      b.fetch(3000)
    }
    s.transport.calls.size should be >= 3
    all(s.gapsMillis) should be >= 5000L
    // Another shard, or another consumer, has a turn of its own.
    s.limiter.tryAcquire(arn, "shardId-000000000001") shouldBe 0L
    s.limiter.tryAcquire("arn:other", shard.shardId) shouldBe 0L
  }

  test("ResourceInUse, LimitExceeded, internal failures and I/O errors are retried with jittered back-off") {
    val s = new Setup()
    val seqs = s.transport.put(6)
    s.transport.failNext(
      ResourceInUseException.builder().message("Another active subscription exists").build(),
      LimitExceededException.builder().message("Rate exceeded").build(),
      InternalFailureException.builder().message("internal").build(),
      SdkClientException.create("connection reset", new IOException("Connection reset by peer")),
      new IOException("read timed out"))
    val cursor = s.cursor()
    s.read(cursor, 6).map(_.sequenceNumber) shouldBe seqs
    s.transport.calls should have size 6
    s.transport.calls.map(_.start).distinct shouldBe Seq(ShardPosition.TrimHorizon)
    all(s.gapsMillis) should be >= 5000L
    s.metrics.subscriptionFailures shouldBe 5
    s.metrics.liveSubscriptions shouldBe 1
  }

  test("back-off grows with consecutive failures, with jitter, up to backOffMaxMs") {
    val settings = SubscriptionSettings(maxConsecutiveFailures = 9, backOffBaseMs = 1000, backOffMaxMs = 30000)
    val s = new Setup(settings = settings)
    s.transport.put(1)
    s.transport.failNext(Seq.fill(8)(LimitExceededException.builder().message("slow down").build()): _*)
    s.read(s.cursor(), 1) should have size 1
    val gaps = s.gapsMillis
    gaps should have size 8
    all(gaps) should be >= 5000L
    gaps.takeRight(3).foreach(_ should (be >= 15000L and be <= 30000L + 1000L))
  }

  test("a failure after records were handed out resumes after the last record handed out") {
    val s = new Setup(recordsPerEvent = 2, eventsPerSubscription = 2)
    val seqs = s.transport.put(8)
    val cursor = s.cursor()
    s.read(cursor, 4) should have size 4
    s.transport.failNext(new IOException("stream reset"))
    s.read(cursor, 4).map(_.sequenceNumber) shouldBe seqs.drop(4)
    s.transport.calls.map(_.start).drop(1).distinct shouldBe Seq(ShardPosition.AfterSequence(seqs(3)))
  }

  private def expiredToken = KinesisException.builder().statusCode(400)
    .message("The security token included in the request is expired")
    .awsErrorDetails(AwsErrorDetails.builder().errorCode("ExpiredTokenException").build()).build()

  test("a subscription refused for credentials that expired on its way is made again, with the renewed ones") {
    val s = new Setup()
    val seqs = s.transport.put(3)
    s.transport.failNext(expiredToken)
    s.read(s.cursor(), 3).map(_.sequenceNumber) shouldBe seqs
    s.transport.calls should have size 2
  }

  test("credentials that stay expired fail the read after the consecutive failures allowed, saying so") {
    val s =
      new Setup(settings = SubscriptionSettings(maxConsecutiveFailures = 3, backOffBaseMs = 10, backOffMaxMs = 10))
    s.transport.put(1)
    s.transport.failNext(Seq.fill(5)(expiredToken): _*)
    val cursor = s.cursor()
    val e = intercept[KinesisConnectorException](s.read(cursor, 1))
    e.getCondition shouldBe "KINESIS_EFO_SUBSCRIPTION_FAILED"
    e.getMessage should include("expired")
    s.transport.calls should have size 3
  }

  test("a non-retryable error fails the read at once with a clear error") {
    val s = new Setup()
    s.transport.failNext(AccessDeniedException.builder().message("not allowed").build())
    val e = intercept[KinesisConnectorException](s.cursor().fetch(1000))
    e.getCondition shouldBe "KINESIS_EFO_SUBSCRIPTION_FAILED"
    e.getMessage should (include(shard.toString) and include(arn) and include("not allowed"))
    s.transport.calls should have size 1
  }

  test("a consumer deregistered behind the query's back fails the read at once, saying so") {
    val s = new Setup()
    s.transport.failNext(ResourceNotFoundException.builder().message("ConsumerARN not found").build())
    val e = intercept[KinesisConnectorException](s.cursor().fetch(1000))
    e.getCondition shouldBe "KINESIS_EFO_CONSUMER_DELETED"
    e.getMessage should (include(shard.toString) and include(arn) and include("ConsumerARN not found") and
      include("deregistered while the query read with it"))
    s.transport.calls should have size 1
  }

  test("a subscription held elsewhere through every attempt says so") {
    val s = new Setup(settings = SubscriptionSettings(maxConsecutiveFailures = 4))
    s.transport.failNext(Seq.fill(4)(ResourceInUseException.builder().message("in use").build()): _*)
    val cursor = s.cursor()
    val e = intercept[KinesisConnectorException]((1 to 100).foreach(_ => cursor.fetch(1000)))
    e.getCondition shouldBe "KINESIS_EFO_SUBSCRIPTION_IN_USE"
    e.getMessage should include("its own consumerName")
    s.transport.calls should have size 4
  }

  test("a SubscribeToShard failure that quotes the credentials fails the read with them masked") {
    val token = "CursorSuiteSessionToken+abcabcabc"
    val keys = CredentialsConfig.StaticKeys("AKIACURSORSUITE00042", "CursorSuiteSecretKey/xyzxyz", Some(token))
    def quoting(what: String) = s"$what: the canonical string should have been 'x-amz-security-token:$token' " +
      s"with key ${keys.accessKeyId} and secret ${keys.secretKey}"
    // Refused at once (a bad signature) and after every attempt (a retryable failure that repeats).
    val refused = new Setup(credentials = keys)
    refused.transport.failNext(AccessDeniedException.builder().message(quoting("signature")).build())
    val atOnce = intercept[KinesisConnectorException](refused.cursor().fetch(1000))
    val retried = new Setup(credentials = keys, settings = SubscriptionSettings(maxConsecutiveFailures = 3))
    retried.transport.failNext(Seq.fill(3)(LimitExceededException.builder().message(quoting("limit")).build()): _*)
    val cursor = retried.cursor()
    val afterAttempts = intercept[KinesisConnectorException]((1 to 100).foreach(_ => cursor.fetch(1000)))
    Seq(atOnce, afterAttempts).foreach { e =>
      e.getCondition shouldBe "KINESIS_EFO_SUBSCRIPTION_FAILED"
      val shown = chainText(e)
      shown should not include token
      shown should not include keys.secretKey
      shown should not include keys.accessKeyId
      shown should include("canonical string")
    }
  }

  /** Every message of an exception's chain and of what it suppressed, as logs and the query's error show them. */
  private def chainText(e: Throwable): String =
    Iterator.iterate(e)(_.getCause).takeWhile(_ != null).take(20)
      .flatMap(c => Seq(c) ++ c.getSuppressed).map(c => s"$c ${c.getMessage}").mkString("\n")

  test("which errors are retried") {
    import SubscriptionCursor.isRetryable
    isRetryable(ResourceInUseException.builder().build()) shouldBe true
    isRetryable(new java.util.concurrent.CompletionException(LimitExceededException.builder().build())) shouldBe true
    isRetryable(SdkClientException.create("Read timed out", new java.net.SocketTimeoutException())) shouldBe true
    isRetryable(new SubscriptionStalledException("quiet")) shouldBe true
    isRetryable(ResourceNotFoundException.builder().build()) shouldBe false
    isRetryable(AccessDeniedException.builder().build()) shouldBe false
    isRetryable(expiredToken) shouldBe true
    isRetryable(SdkClientException.create("handshake",
        new SSLHandshakeException("PKIX path building failed"))) shouldBe false
    isRetryable(new IllegalStateException("a bug")) shouldBe false
  }

  test("the shard's final event ends the cursor at ShardEnd with the last record") {
    val s = new Setup(recordsPerEvent = 4)
    val seqs = s.transport.put(6)
    s.transport.closeShard()
    val cursor = s.cursor()
    s.read(cursor, 100).map(_.sequenceNumber) shouldBe seqs
    cursor.isEnded shouldBe true
    cursor.position shouldBe ShardPosition.ShardEnd(Some(seqs.last))
    s.metrics.liveSubscriptions shouldBe 0
    an[IllegalArgumentException] should be thrownBy cursor.fetch(10)
  }

  test("a closed shard with nothing after the start ends with the start's last record") {
    val s = new Setup()
    val seqs = s.transport.put(3)
    s.transport.closeShard()
    val cursor = s.cursor(ShardPosition.AfterSequence(seqs.last))
    cursor.fetch(1000).records shouldBe empty
    cursor.position shouldBe ShardPosition.ShardEnd(Some(seqs.last))
  }

  test("starting at a ShardEnd subscribes to nothing") {
    val s = new Setup()
    val cursor = s.cursor(ShardPosition.ShardEnd(Some("1")))
    cursor.isEnded shouldBe true
    s.transport.calls shouldBe empty
  }

  test("a subscription that goes quiet although events were requested is replaced") {
    val s = new Setup(heartbeats = false, settings = SubscriptionSettings(stallTimeoutMs = 30000))
    val seqs = s.transport.put(2)
    val cursor = s.cursor()
    s.read(cursor, 2) should have size 2
    (1 to 40).foreach(_ => cursor.fetch(1000)) // 40 s without an event.
    s.transport.calls.size shouldBe 2
    s.transport.sessions.head.cancelled shouldBe true
    s.transport.calls(1).start shouldBe ShardPosition.AfterSequence(seqs.last)
    s.metrics.subscriptionFailures shouldBe 1
  }

  test("records repeated by a resumed subscription are dropped, so positions stay exact") {
    val s = new Setup(recordsPerEvent = 2)
    val seqs = s.transport.put(4)
    val cursor = s.cursor()
    s.read(cursor, 4).map(_.sequenceNumber) shouldBe seqs
    cursor.endSubscription()
    val more = s.transport.put(2)
    s.transport.rewindNextSubscription(3) // A server that resumes three records too early.
    s.read(cursor, 2).map(_.sequenceNumber) shouldBe more
    cursor.position shouldBe ShardPosition.AfterSequence(more.last)
  }
}
