// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.sdk

import java.net.URI
import java.time.Duration
import java.util.Locale

import scala.jdk.CollectionConverters._

import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider
import software.amazon.awssdk.awscore.client.builder.AwsClientBuilder
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration
import software.amazon.awssdk.http.{Protocol, ProtocolNegotiation}
import software.amazon.awssdk.http.nio.netty.{
  Http2Configuration, NettyNioAsyncHttpClient, ProxyConfiguration => NettyProxyConfiguration
}
import software.amazon.awssdk.regions.Region
import software.amazon.awssdk.retries.api.RetryStrategy
import software.amazon.awssdk.services.kinesis.{KinesisAsyncClient, KinesisClient}
import io.github.sparkkinesis.client.{ConnectionConfig, CredentialsConfig, ProxyConfig}
import io.github.sparkkinesis.client.credentials.{AwsCredentials, SdkLogging}
import io.github.sparkkinesis.client.failures.ThrottlingSurfaces
import io.github.sparkkinesis.client.http.SyncHttp
import io.github.sparkkinesis.client.wire.{GetRecordsDecoding, SubscribeEventDecoding}

/**
 * The one place Kinesis clients are built: the synchronous one (GetRecords, ListShards,
 * PutRecords, consumer management) and the asynchronous HTTP/2 one (SubscribeToShard); STS
 * clients (for roles) are built beside the credentials, by [[StsClients]]. Every build first pins the loggers that print credentials at DEBUG (the SDK's signers,
 * Netty's HTTP/2 frame logger) at INFO (ARCHITECTURE.md invariant 7, [[SdkLogging]]), so no JVM
 * can build a client that skips it.
 *
 * Request encoding: Kinesis clients speak CBOR (GetRecords answers' records are read by
 * [[GetRecordsDecoding]], everything else by the SDK) unless the JVM property `aws.cborEnabled=false`
 * (or `AWS_CBOR_DISABLED`) asks for JSON; the SDK reads that itself, for every client alike.
 * SubscribeToShard is always JSON (the SDK's generated call fixes it); its events' records are
 * read by [[SubscribeEventDecoding]].
 *
 * Proxy: with `proxyHost`, every client (both Kinesis clients and STS) goes through that HTTP
 * proxy, and nothing else decides (the SDK's reading of JVM properties and environment variables
 * is off); without it, the JVM's and the SDK's own proxy settings apply as they always did.
 *
 * TLS: `https://` endpoints are always verified against the JVM's trust store (the SDK's
 * default); there is deliberately no switch to turn that off. A private CA or a self-signed
 * local endpoint is trusted with `-Djavax.net.ssl.trustStore` (docs/authentication.md, "TLS").
 */
private[client] object AwsClientFactory {
  val ConnectTimeout: Duration = SyncHttp.ConnectTimeout
  /** A GetRecords answer of 10 MB over a slow link still arrives within this. */
  val SyncSocketTimeout: Duration = Duration.ofSeconds(60)

  /** Every subscription is one HTTP/2 stream; an executor may read thousands of shards. */
  val MaxConcurrency = 10000
  /**
   * Longer than a subscription's 5-minute life: a subscription whose reader's buffer is full
   * gets no data (backpressure) and must not time out for it. Dead connections are found by
   * HTTP/2 PINGs instead, and stalls by the subscription cursor.
   */
  val AsyncReadTimeout: Duration = Duration.ofMinutes(6)
  val HealthCheckPingPeriod: Duration = Duration.ofSeconds(10)

  def syncKinesis(connection: ConnectionConfig): KinesisClient = sync(connection, None)

  /**
   * The client GetRecords is called on: throttling is not retried by the SDK but reaches the
   * shard's cursor ([[ThrottlingSurfaces]]). Set once on a client of its own, because a
   * per-request plugin rebuilds the client's configuration at every call.
   */
  def recordsKinesis(connection: ConnectionConfig): KinesisClient = sync(connection, Some(ThrottlingSurfaces.strategy))

  private def sync(connection: ConnectionConfig, retries: Option[RetryStrategy]): KinesisClient = {
    SdkLogging.quietSecretLoggers()
    val http = SyncHttp.builder(ConnectTimeout, SyncSocketTimeout, connection.proxy)
    val overrides = ClientOverrideConfiguration.builder().addExecutionInterceptor(GetRecordsDecoding.Interceptor)
    retries.foreach(overrides.retryStrategy)
    signedWith(connection.credentials) { provider =>
      located(KinesisClient.builder().httpClientBuilder(http).overrideConfiguration(overrides.build()),
        connection.region, connection.endpoint, provider).build()
    }
  }

  /**
   * SubscribeToShard needs HTTP/2. On https endpoints the protocol is negotiated with ALPN
   * (`h2`); on plain http endpoints (local Kinesis only) HTTP/2 is spoken with prior knowledge
   * (h2c), which kinesis-mock accepts.
   */
  def asyncKinesis(connection: ConnectionConfig): KinesisAsyncClient = {
    SdkLogging.quietSecretLoggers()
    val negotiation = if (isPlainHttp(connection)) ProtocolNegotiation.ASSUME_PROTOCOL else ProtocolNegotiation.ALPN
    val http = NettyNioAsyncHttpClient.builder()
      .protocol(Protocol.HTTP2)
      .protocolNegotiation(negotiation)
      .maxConcurrency(MaxConcurrency)
      .connectionTimeout(ConnectTimeout)
      .connectionAcquisitionTimeout(Duration.ofSeconds(60))
      .readTimeout(AsyncReadTimeout)
      .writeTimeout(Duration.ofSeconds(30))
      .http2Configuration(Http2Configuration.builder()
          .initialWindowSize(512 * 1024)
          .healthCheckPingPeriod(HealthCheckPingPeriod)
          .build())
    connection.proxy.foreach(p => http.proxyConfiguration(nettyProxy(p)))
    val decoding = ClientOverrideConfiguration.builder().addExecutionInterceptor(SubscribeEventDecoding.Interceptor)
      .build()
    signedWith(connection.credentials) { provider =>
      located(KinesisAsyncClient.builder().httpClientBuilder(http).overrideConfiguration(decoding), connection.region,
        connection.endpoint, provider).build()
    }
  }

  /**
   * A client built with the provider of `credentials`, which the client then holds: whoever
   * closes the client releases it ([[AwsCredentials.release]]); a build that fails releases it at once.
   */
  private def signedWith[C](credentials: CredentialsConfig)(build: AwsCredentialsProvider => C): C = {
    val provider = AwsCredentials.acquire(credentials)
    try build(provider)
    catch {
      case e: Throwable =>
        AwsCredentials.release(credentials)
        throw e
    }
  }

  /** Whether an endpoint is plain http (h2c with prior knowledge) rather than https (ALPN h2). */
  def isPlainHttp(connection: ConnectionConfig): Boolean =
    connection.endpoint.exists(_.trim.toLowerCase(Locale.ROOT).startsWith("http://"))

  private def nettyProxy(proxy: ProxyConfig): NettyProxyConfiguration = {
    val builder = NettyProxyConfiguration.builder()
      .scheme("http")
      .host(proxy.host)
      .port(proxy.port)
      .nonProxyHosts(proxy.nonProxyHostRegexes.asJava)
      .useSystemPropertyValues(false)
      .useEnvironmentVariableValues(false)
    proxy.username.foreach(builder.username)
    proxy.password.foreach(builder.password)
    builder.build()
  }

  /** Region, endpoint and credentials: the settings every client shares. */
  private def located[B <: AwsClientBuilder[B, _]](builder: B, region: String, endpoint: Option[String],
      credentials: AwsCredentialsProvider): B = {
    builder.region(Region.of(region)).credentialsProvider(credentials)
    endpoint.foreach(e => builder.endpointOverride(URI.create(e)))
    builder
  }
}
