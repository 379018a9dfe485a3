// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.http

import java.net.URI
import java.time.Duration

import scala.jdk.CollectionConverters._
import scala.jdk.OptionConverters._
import scala.util.Try

import software.amazon.awssdk.http.{ExecutableHttpRequest, HttpExecuteRequest, SdkHttpClient}
import software.amazon.awssdk.http.urlconnection.{ProxyConfiguration, UrlConnectionHttpClient}
import software.amazon.awssdk.utils.AttributeMap
import io.github.sparkkinesis.client.ProxyConfig

/**
 * The HTTP client of the synchronous SDK clients (every Kinesis call but SubscribeToShard, and
 * STS): the JDK's URL connection, through the SDK's `UrlConnectionHttpClient`, with two changes.
 *
 * Small requests are sent buffered. The SDK hands the JDK every request that has a
 * Content-Length as a fixed-length stream, and before the JDK sends a streamed POST on a kept
 * connection it checks that the connection is still open by reading from it with a 1 ms
 * time-out; nothing comes, so every call waited that millisecond and the JDK allocated and
 * threw an exception for it. A buffered body needs no check (the JDK sends it again on a new
 * connection if the kept one turns out closed, as the SDK's own retry would), so a request of
 * at most [[BufferedBodyLimit]] bytes goes without its Content-Length header, and the JDK sets
 * it, to the same value, from the buffered body. Larger ones (a sink's PutRecords) stream, as
 * their transfer takes longer than the check.
 *
 * Connections are kept: the JDK keeps at most `http.maxConnections` idle connections per host
 * (5 by default) and closes the rest as their calls end, so with several calls in flight per
 * task most calls would open a new connection (a TLS handshake each). The property is raised
 * unless the JVM was given a value; the JDK reads it once, at its first kept connection.
 */
object SyncHttp {
  /** Every client's connect timeout (sync, HTTP/2 and STS). */
  val ConnectTimeout: Duration = Duration.ofSeconds(10)
  /** GetRecords, GetShardIterator, ListShards and a small PutRecords are far below this. */
  val BufferedBodyLimit: Long = 64 * 1024

  val MaxConnectionsProperty = "http.maxConnections"
  val IdleConnectionsPerHost = 128

  /** The client builder the SDK builds (and closes) with its Kinesis or STS client. */
  def builder(connectTimeout: Duration, socketTimeout: Duration, proxy: Option[ProxyConfig]): Builder = {
    keepConnectionsOpen()
    val url = UrlConnectionHttpClient.builder().connectionTimeout(connectTimeout).socketTimeout(socketTimeout)
    proxy.foreach(p => url.proxyConfiguration(proxyConfiguration(p)))
    new Builder(url)
  }

  final class Builder(url: UrlConnectionHttpClient.Builder) extends SdkHttpClient.Builder[Builder] {
    override def buildWithDefaults(serviceDefaults: AttributeMap): SdkHttpClient =
      new SmallRequestsBuffered(url.buildWithDefaults(serviceDefaults))
  }

  private final class SmallRequestsBuffered(url: SdkHttpClient) extends SdkHttpClient {
    override def prepareRequest(request: HttpExecuteRequest): ExecutableHttpRequest =
      url.prepareRequest(buffered(request))
    override def clientName(): String = url.clientName()
    override def close(): Unit = url.close()
  }

  /**
   * `request` without its Content-Length when it has a body small enough to be buffered (without
   * a body, the JDK would send no Content-Length, and the signature may cover it).
   */
  def buffered(request: HttpExecuteRequest): HttpExecuteRequest = {
    val length =
      request.httpRequest().firstMatchingHeader("Content-Length").toScala.flatMap(n => Try(n.trim.toLong).toOption)
    if (!request.contentStreamProvider().isPresent || length.forall(_ > BufferedBodyLimit)) request
    else {
      val copy =
        HttpExecuteRequest.builder().request(request.httpRequest().toBuilder.removeHeader("Content-Length").build())
      request.contentStreamProvider().ifPresent(body => copy.contentStreamProvider(body))
      request.metricCollector().ifPresent(metrics => copy.metricCollector(metrics))
      copy.build()
    }
  }

  private def keepConnectionsOpen(): Unit = synchronized {
    if (System.getProperty(MaxConnectionsProperty) == null) {
      System.setProperty(MaxConnectionsProperty, IdleConnectionsPerHost.toString)
    }
  }

  private def proxyConfiguration(proxy: ProxyConfig): ProxyConfiguration = {
    val builder = ProxyConfiguration.builder()
      .endpoint(new URI("http", null, proxy.host, proxy.port, null, null, null))
      .nonProxyHosts(proxy.nonProxyHostRegexes.asJava)
      .useSystemPropertyValues(false)
      .useEnvironmentVariablesValues(false)
    proxy.username.foreach(builder.username)
    proxy.password.foreach(builder.password)
    builder.build()
  }
}
