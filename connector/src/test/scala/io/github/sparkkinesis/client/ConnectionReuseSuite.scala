// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client

import java.io.{BufferedInputStream, InputStream}
import java.net.{InetAddress, ServerSocket, Socket}
import java.nio.charset.StandardCharsets.US_ASCII
import java.util.concurrent.{CyclicBarrier, TimeUnit}
import java.util.concurrent.atomic.AtomicInteger

import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.threads.InFlight

/**
 * Calls in flight at once keep their connections for the next ones: a prefetch task has several
 * calls in flight, and on AWS a new connection is a TLS handshake.
 */
class ConnectionReuseSuite extends AnyFunSuite with Matchers with BeforeAndAfterAll {
  private val inFlight = 16
  private val accepted = new AtomicInteger()
  // Every answer waits until `inFlight` calls are in: each wave really holds that many connections.
  private val wave = new CyclicBarrier(inFlight)
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

  /** HTTP/1.1 with keep-alive: every request is answered with an empty CBOR map, an empty ListStreams result. */
  private def serve(socket: Socket): Unit =
    try {
      val in = new BufferedInputStream(socket.getInputStream)
      var open = true
      while (open) {
        val headers = readHeaders(in)
        if (headers == null) open = false
        else {
          val length = headers.collectFirst {
            case h if h.toLowerCase.startsWith("content-length:") => h.substring(15).trim.toInt
          }.getOrElse(0)
          in.readNBytes(length)
          wave.await(20, TimeUnit.SECONDS)
          socket.getOutputStream.write(("HTTP/1.1 200 OK\r\nContent-Type: application/x-amz-cbor-1.1\r\n" +
            "Content-Length: 1\r\n\r\n").getBytes(US_ASCII) :+ 0xa0.toByte)
          socket.getOutputStream.flush()
        }
      }
    } catch { case _: Exception => () }
    finally socket.close()

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

  test("a second wave of calls in flight reuses the first wave's connections") {
    val preset = Option(System.getProperty(AwsClientFactory.MaxConnectionsProperty))
    val client = AwsClientFactory.syncKinesis(ConnectionConfig("us-east-1",
        Some(s"http://127.0.0.1:${server.getLocalPort}"), CredentialsConfig.StaticKeys("test", "test", None)))
    try {
      System.getProperty(AwsClientFactory.MaxConnectionsProperty) shouldBe
        preset.getOrElse(AwsClientFactory.IdleConnectionsPerHost.toString)
      assume(preset.forall(_.toInt >= inFlight), "this JVM was given a lower http.maxConnections")
      (1 to 2).foreach { _ =>
        InFlight.map((1 to inFlight).toIndexedSeq, inFlight)(_ => client.listStreams().streamNames().size) shouldBe
          Seq.fill(inFlight)(0)
      }
      // The JDK's default keeps 5 connections: the second wave would open 11 more.
      accepted.get shouldBe inFlight
    } finally client.close()
  }
}
