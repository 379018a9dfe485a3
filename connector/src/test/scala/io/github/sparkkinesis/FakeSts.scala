// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis

import java.net.{InetSocketAddress, URLDecoder}
import java.nio.charset.StandardCharsets
import java.time.Instant
import java.time.temporal.ChronoUnit
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.atomic.AtomicInteger

import scala.jdk.CollectionConverters._

import com.sun.net.httpserver.{HttpExchange, HttpServer}

/**
 * A local STS that answers AssumeRole (query protocol, as the SDK speaks it) on a loopback
 * port, so unit tests can see what the connector sends to STS and how often, with no network
 * and no moto. Each answer holds new credentials (ASIAFAKE0000000000001, ...) that expire
 * `sessionSeconds` later (the requested DurationSeconds by default).
 *
 * Set `deny` to answer 403 AccessDenied instead, as STS does when the trust policy refuses.
 */
final class FakeSts(sessionSeconds: Option[Int] = None) extends AutoCloseable {

  /** One AssumeRole request: its form parameters and the access key id that signed it. */
  final case class Call(params: Map[String, String], signedWith: Option[String])

  private val calls = new CopyOnWriteArrayList[Call]()
  private val issued = new AtomicInteger()
  @volatile var deny: Boolean = false

  private val server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0)
  server.createContext("/", (exchange: HttpExchange) => answer(exchange))
  server.start()

  val endpoint: String = s"http://127.0.0.1:${server.getAddress.getPort}"

  def assumeRoleCalls: Seq[Call] = calls.asScala.toSeq

  def accessKeyId(n: Int): String = f"ASIAFAKE$n%012d"

  private def answer(exchange: HttpExchange): Unit = {
    val body = new String(exchange.getRequestBody.readAllBytes(), StandardCharsets.UTF_8)
    val params = body.split("&").filter(_.contains("=")).map { pair =>
      val Array(k, v) = pair.split("=", 2)
      URLDecoder.decode(k, StandardCharsets.UTF_8) -> URLDecoder.decode(v, StandardCharsets.UTF_8)
    }.toMap
    val signedWith = Option(exchange.getRequestHeaders.getFirst("Authorization"))
      .flatMap("Credential=([^/]+)/".r.findFirstMatchIn(_)).map(_.group(1))
    calls.add(Call(params, signedWith))
    val (status, xml) =
      if (deny) {
        403 -> ("""<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type>""" +
          """<Code>AccessDenied</Code><Message>User: arn:aws:iam::123456789012:user/base is not authorized """ +
          """to perform: sts:AssumeRole</Message></Error><RequestId>fake</RequestId></ErrorResponse>""")
      } else {
        val n = issued.incrementAndGet()
        val seconds = sessionSeconds.getOrElse(params.get("DurationSeconds").map(_.toInt).getOrElse(3600))
        val expiration = Instant.now().plusSeconds(seconds.toLong).truncatedTo(ChronoUnit.SECONDS)
        200 -> s"""<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleResult>
          |<Credentials><AccessKeyId>${accessKeyId(n)}</AccessKeyId>
          |<SecretAccessKey>fake-role-secret-$n</SecretAccessKey><SessionToken>fake-role-token-$n</SessionToken>
          |<Expiration>$expiration</Expiration></Credentials>
          |<AssumedRoleUser><AssumedRoleId>AROAFAKE:${params.getOrElse("RoleSessionName", "")}</AssumedRoleId>
          |<Arn>arn:aws:sts::123456789012:assumed-role/reader/${params.getOrElse("RoleSessionName", "")}</Arn>
          |</AssumedRoleUser></AssumeRoleResult><ResponseMetadata><RequestId>fake-$n</RequestId>
          |</ResponseMetadata></AssumeRoleResponse>""".stripMargin
      }
    val bytes = xml.getBytes(StandardCharsets.UTF_8)
    exchange.getResponseHeaders.add("Content-Type", "text/xml")
    exchange.sendResponseHeaders(status, bytes.length.toLong)
    exchange.getResponseBody.write(bytes)
    exchange.close()
  }

  override def close(): Unit = server.stop(0)
}
