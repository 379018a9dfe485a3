// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.http

import java.io.{BufferedInputStream, ByteArrayInputStream, InputStream}
import java.net.{InetAddress, ServerSocket, Socket, URI}
import java.nio.charset.StandardCharsets.US_ASCII
import java.util.concurrent.{ConcurrentLinkedQueue, CyclicBarrier, TimeUnit}
import java.util.concurrent.atomic.AtomicInteger

import scala.jdk.CollectionConverters._

import java.time.Duration

import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers
import software.amazon.awssdk.auth.credentials.{AwsBasicCredentials, StaticCredentialsProvider}
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy
import software.amazon.awssdk.core.SdkBytes
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration
import software.amazon.awssdk.http.{ContentStreamProvider, HttpExecuteRequest, SdkHttpMethod, SdkHttpRequest}
import software.amazon.awssdk.regions.Region
import software.amazon.awssdk.services.kinesis.KinesisClient
import software.amazon.awssdk.services.kinesis.model.{PutRecordsRequest, PutRecordsRequestEntry}

import io.github.sparkkinesis.threads.InFlight
import io.github.sparkkinesis.client.{ConnectionConfig, CredentialsConfig}
import io.github.sparkkinesis.client.sdk.AwsClientFactory

/**
 * The synchronous clients' HTTP layer ([[SyncHttp]]) against a loopback HTTP/1.1 server: calls
 * in flight at once keep their connections for the next ones (a prefetch task has several calls
 * in flight, and on AWS a new connection is a TLS handshake); small requests go buffered, with
 * the Content-Length the JDK sets, and still go through when the server closed the connection
 * they were to be sent on.
 */
class SyncHttpSuite extends AnyFunSuite with Matchers with BeforeAndAfterAll {
  private val inFlight = 16
  private val accepted = new AtomicInteger()
  /** Set by a test: every answer waits until this many calls are in, so each wave really holds that many connections. */
  @volatile private var wave: Option[CyclicBarrier] = None
  /** Set by a test: the server closes each connection after answering on it, without saying so. */
  @volatile private var closeAfterAnswer = false
  /** Each request's header lines and the length of the body that came with them. */
  private val received = new ConcurrentLinkedQueue[(Seq[String], Int)]()
  private val server = new ServerSocket(0, 64, InetAddress.getLoopbackAddress)

  private val acceptor = new Thread(() =>
    while (!server.isClosed) {
      try {
        val socket = server.accept()
        accepted.incrementAndGet()
        val serving = new Thread(() => serve(socket))
        serving.setDaemon(true)
        serving.start()
      } catch { case _: java.io.IOException => () }
    })

  /** HTTP/1.1 with keep-alive: every request is answered with an empty CBOR map (an empty ListStreams result). */
  private def serve(socket: Socket): Unit =
    try {
      val in = new BufferedInputStream(socket.getInputStream)
      var open = true
      while (open) {
        val headers = readHeaders(in)
        if (headers == null) open = false
        else {
          val length = header(headers, "content-length").map(_.toInt).getOrElse(0)
          received.add((headers, in.readNBytes(length).length))
          wave.foreach(_.await(20, TimeUnit.SECONDS))
          socket.getOutputStream.write(("HTTP/1.1 200 OK\r\nContent-Type: application/x-amz-cbor-1.1\r\n" +
            "Content-Length: 1\r\n\r\n").getBytes(US_ASCII) :+ 0xa0.toByte)
          socket.getOutputStream.flush()
          open = !closeAfterAnswer
        }
      }
    } catch { case _: Exception => () }
    finally socket.close()

  private def header(lines: Seq[String], name: String): Option[String] =
    lines.collectFirst { case h if h.toLowerCase.startsWith(s"$name:") => h.substring(name.length + 1).trim }

  private def readHeaders(in: InputStream): Seq[String] = {
    val lines = Seq.newBuilder[String]
    val line = new StringBuilder
    var c = in.read()
    while (c != -1) {
      if (c == '\n') {
        val text = line.toString.stripSuffix("\r")
        if (text.isEmpty) return lines.result()
        lines += text
        line.clear()
      } else line.append(c.toChar)
      c = in.read()
    }
    null
  }

  override def beforeAll(): Unit = {
    acceptor.setDaemon(true)
    acceptor.start()
  }

  override def afterAll(): Unit = server.close()

  private def connectorClient(): KinesisClient = AwsClientFactory.syncKinesis(ConnectionConfig("us-east-1",
      Some(s"http://127.0.0.1:${server.getLocalPort}"), CredentialsConfig.StaticKeys("test", "test", None)))

  /** The JDK keeps connections JVM-wide, so a client may get one an earlier test opened. */
  private def withClient[T](run: KinesisClient => T, newClient: () => KinesisClient = () => connectorClient()): T = {
    accepted.set(0)
    received.clear()
    val client = newClient()
    try run(client)
    finally {
      client.close()
      wave = None
      closeAfterAnswer = false
    }
  }

  test("a second wave of calls in flight reuses the first wave's connections") {
    val preset = Option(System.getProperty(SyncHttp.MaxConnectionsProperty))
    wave = Some(new CyclicBarrier(inFlight))
    withClient { client =>
      System.getProperty(SyncHttp.MaxConnectionsProperty) shouldBe
        preset.getOrElse(SyncHttp.IdleConnectionsPerHost.toString)
      assume(preset.forall(_.toInt >= inFlight), "this JVM was given a lower http.maxConnections")
      (1 to 2).foreach { _ =>
        InFlight.map((1 to inFlight).toIndexedSeq, inFlight)(_ => client.listStreams().streamNames().size) shouldBe
          Seq.fill(inFlight)(0)
      }
      // The JDK's default keeps 5 connections: the second wave would open 11 more.
      accepted.get shouldBe inFlight
    }
  }

  test("small and large requests arrive whole, with the Content-Length of their body") {
    withClient { client =>
      (1 to 3).foreach(_ => client.listStreams())
      val entry = PutRecordsRequestEntry.builder().partitionKey("k")
        .data(SdkBytes.fromByteArray(Array.fill[Byte]((SyncHttp.BufferedBodyLimit * 2).toInt)(7))).build()
      client.putRecords(PutRecordsRequest.builder().streamName("s").records(entry).build())
      val requests = received.asScala.toSeq
      requests should have size 4
      all(requests.map { case (headers, body) => header(headers, "content-length").map(_.toInt) -> body }.map {
        case (declared, body) => declared shouldBe Some(body)
      })
      requests.last._2.toLong should be > SyncHttp.BufferedBodyLimit
    }
  }

  test("a small request still goes through, without the SDK's retries, when the server closed the kept connection") {
    closeAfterAnswer = true
    val withoutRetries = () =>
      KinesisClient.builder()
        .httpClientBuilder(SyncHttp.builder(Duration.ofSeconds(5), Duration.ofSeconds(5), None))
        .overrideConfiguration(
          ClientOverrideConfiguration.builder().retryStrategy(AwsRetryStrategy.doNotRetry()).build())
        .region(Region.US_EAST_1).endpointOverride(URI.create(s"http://127.0.0.1:${server.getLocalPort}"))
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test"))).build()
    withClient(client => {
        (1 to 3).foreach(_ => client.listStreams().streamNames().size shouldBe 0)
        // Each arrived once; the JDK kept each closed connection, so the second and third call found theirs closed.
        received.size shouldBe 3
        accepted.get should be >= 2
      }, withoutRetries)
  }

  private def request(contentLength: Option[Long]): HttpExecuteRequest = {
    val http = SdkHttpRequest.builder().method(SdkHttpMethod.POST).uri(URI.create("http://localhost/"))
      .putHeader("X-Amz-Target", "Kinesis_20131202.GetRecords")
    contentLength.foreach(n => http.putHeader("Content-Length", n.toString))
    val body: ContentStreamProvider = () => new ByteArrayInputStream(Array[Byte](1, 2, 3))
    HttpExecuteRequest.builder().request(http.build()).contentStreamProvider(body).build()
  }

  test("only a request with a body and a Content-Length up to the limit loses the header, and keeps the rest") {
    val small = SyncHttp.buffered(request(Some(SyncHttp.BufferedBodyLimit)))
    small.httpRequest().firstMatchingHeader("Content-Length").isPresent shouldBe false
    small.httpRequest().firstMatchingHeader("X-Amz-Target").get shouldBe "Kinesis_20131202.GetRecords"
    small.contentStreamProvider().get.newStream().readAllBytes() shouldBe Array[Byte](1, 2, 3)
    val large = request(Some(SyncHttp.BufferedBodyLimit + 1))
    SyncHttp.buffered(large) should be theSameInstanceAs large
    val unknown = request(None)
    SyncHttp.buffered(unknown) should be theSameInstanceAs unknown
    val unreadable = request(None)
    val withText = HttpExecuteRequest.builder().request(unreadable.httpRequest().toBuilder.putHeader("Content-Length",
        "n/a").build())
      .contentStreamProvider(unreadable.contentStreamProvider().get).build()
    SyncHttp.buffered(withText) should be theSameInstanceAs withText
    val bodiless = HttpExecuteRequest.builder().request(request(Some(0)).httpRequest()).build()
    SyncHttp.buffered(bodiless) should be theSameInstanceAs bodiless
  }
}
