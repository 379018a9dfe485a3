package io.github.sparkkinesis.efo

import java.net.URI
import java.time.Duration
import java.util.Locale
import java.util.concurrent.ConcurrentHashMap

import software.amazon.awssdk.http.{Protocol, ProtocolNegotiation}
import software.amazon.awssdk.http.nio.netty.{Http2Configuration, NettyNioAsyncHttpClient}
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient
import software.amazon.awssdk.regions.Region
import software.amazon.awssdk.services.kinesis.{KinesisAsyncClient, KinesisClient}

import io.github.sparkkinesis.client.{ConnectionConfig, KinesisClients}

/**
 * The SDK clients of enhanced fan-out, one of each per [[ConnectionConfig]] per JVM (like
 * [[KinesisClients]]), so every shard subscription on an executor shares one HTTP/2 connection
 * pool and one event loop.
 *
 * SubscribeToShard needs HTTP/2. On https endpoints the protocol is negotiated with ALPN (`h2`);
 * on plain http endpoints (local Kinesis only) HTTP/2 is spoken with prior knowledge (h2c),
 * which kinesis-mock accepts. The server certificate is checked against the JVM's trust store
 * (`javax.net.ssl.trustStore`); there is deliberately no switch to trust every certificate.
 */
object EfoClients {
  private val asyncClients = new ConcurrentHashMap[ConnectionConfig, KinesisAsyncClient]()
  private val consumerApis = new ConcurrentHashMap[ConnectionConfig, ConsumerApi]()

  /** Every subscription is one HTTP/2 stream; an executor may read thousands of shards. */
  val MaxConcurrency = 10000
  /**
   * Longer than a subscription's 5-minute life: a subscription whose reader's buffer is full
   * gets no data (backpressure) and must not time out for it. Dead connections are found by
   * HTTP/2 PINGs instead, and stalls by [[SubscriptionCursor]].
   */
  val ReadTimeout: Duration = Duration.ofMinutes(6)
  val HealthCheckPingPeriod: Duration = Duration.ofSeconds(10)

  def asyncClient(connection: ConnectionConfig): KinesisAsyncClient =
    asyncClients.computeIfAbsent(connection, c => buildAsyncClient(c))

  def transport(connection: ConnectionConfig): SubscriptionTransport =
    new SdkSubscriptionTransport(asyncClient(connection))

  /** Control-plane calls (consumer registration) over HTTP/1.1, which every endpoint serves. */
  def consumerApi(connection: ConnectionConfig): ConsumerApi =
    consumerApis.computeIfAbsent(connection, c => new SdkConsumerApi(buildSyncClient(c), c))

  def registry(connection: ConnectionConfig): ConsumerRegistry =
    new ConsumerRegistry(consumerApi(connection), connection.where)

  /** Whether an endpoint is plain http (h2c with prior knowledge) rather than https (ALPN h2). */
  def isPlainHttp(connection: ConnectionConfig): Boolean =
    connection.endpoint.exists(_.trim.toLowerCase(Locale.ROOT).startsWith("http://"))

  private[efo] def buildAsyncClient(connection: ConnectionConfig): KinesisAsyncClient = {
    val negotiation = if (isPlainHttp(connection)) ProtocolNegotiation.ASSUME_PROTOCOL else ProtocolNegotiation.ALPN
    val http = NettyNioAsyncHttpClient.builder()
      .protocol(Protocol.HTTP2)
      .protocolNegotiation(negotiation)
      .maxConcurrency(MaxConcurrency)
      .connectionTimeout(Duration.ofSeconds(10))
      .connectionAcquisitionTimeout(Duration.ofSeconds(60))
      .readTimeout(ReadTimeout)
      .writeTimeout(Duration.ofSeconds(30))
      .http2Configuration(Http2Configuration.builder()
        .initialWindowSize(512 * 1024)
        .healthCheckPingPeriod(HealthCheckPingPeriod)
        .build())
    val builder = KinesisAsyncClient.builder()
      .httpClientBuilder(http)
      .region(Region.of(connection.region))
      .credentialsProvider(KinesisClients.credentialsProvider(connection.credentials))
    connection.endpoint.foreach(e => builder.endpointOverride(URI.create(e)))
    builder.build()
  }

  private def buildSyncClient(connection: ConnectionConfig): KinesisClient = {
    val http = UrlConnectionHttpClient.builder()
      .connectionTimeout(Duration.ofSeconds(10))
      .socketTimeout(Duration.ofSeconds(60))
    val builder = KinesisClient.builder()
      .httpClientBuilder(http)
      .region(Region.of(connection.region))
      .credentialsProvider(KinesisClients.credentialsProvider(connection.credentials))
    connection.endpoint.foreach(e => builder.endpointOverride(URI.create(e)))
    builder.build()
  }
}
