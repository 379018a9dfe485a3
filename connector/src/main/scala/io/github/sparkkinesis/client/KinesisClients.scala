package io.github.sparkkinesis.client

import java.net.URI
import java.time.Duration
import java.util.concurrent.ConcurrentHashMap

import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient
import software.amazon.awssdk.regions.Region
import software.amazon.awssdk.services.kinesis.KinesisClient

/**
 * Builds SDK clients from a [[ConnectionConfig]] and keeps one per configuration per JVM, so
 * the driver and every executor reuse connections across batches instead of opening new ones.
 *
 * TLS: `https://` endpoints are always verified against the JVM's trust store (the SDK's
 * default); there is deliberately no switch to turn that off. A private CA or a self-signed
 * local endpoint is trusted with `-Djavax.net.ssl.trustStore` (README, "Authentication").
 */
object KinesisClients {
  private val clients = new ConcurrentHashMap[ConnectionConfig, SdkKinesisApi]()

  private val installed = new ConcurrentHashMap[ConnectionConfig, KinesisApi]()

  def api(connection: ConnectionConfig): KinesisApi =
    Option(installed.get(connection)).getOrElse(sdkApi(connection))

  /** The sink's PutRecords, on the same client (and connections) as the reads. */
  def putApi(connection: ConnectionConfig): KinesisPutApi = sdkApi(connection)

  private def sdkApi(connection: ConnectionConfig): SdkKinesisApi =
    clients.computeIfAbsent(connection, c => new SdkKinesisApi(syncClient(c), c))

  /** Puts `api` behind `connection` in this JVM: how tests run the source over a fake Kinesis. */
  private[sparkkinesis] def install(connection: ConnectionConfig, api: KinesisApi): Unit =
    installed.put(connection, api)

  /** The provider for `credentials`, shared by every client in this JVM (see [[AwsCredentials]]). */
  def credentialsProvider(credentials: CredentialsConfig): AwsCredentialsProvider =
    AwsCredentials.provider(credentials)

  private def syncClient(connection: ConnectionConfig): KinesisClient = {
    SdkLogging.quietSigners()
    val http = UrlConnectionHttpClient.builder()
      .connectionTimeout(Duration.ofSeconds(10))
      .socketTimeout(Duration.ofSeconds(60))
    val builder = KinesisClient.builder()
      .httpClientBuilder(http)
      .region(Region.of(connection.region))
      .credentialsProvider(credentialsProvider(connection.credentials))
    connection.endpoint.foreach(e => builder.endpointOverride(URI.create(e)))
    builder.build()
  }
}
