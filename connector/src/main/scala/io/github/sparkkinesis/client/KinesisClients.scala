package io.github.sparkkinesis.client

import java.net.URI
import java.time.Duration
import java.util.concurrent.ConcurrentHashMap

import software.amazon.awssdk.auth.credentials._
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient
import software.amazon.awssdk.regions.Region
import software.amazon.awssdk.services.kinesis.KinesisClient

/**
 * Builds SDK clients from a [[ConnectionConfig]] and keeps one per configuration per JVM, so
 * the driver and every executor reuse connections across batches instead of opening new ones.
 */
object KinesisClients {
  private val clients = new ConcurrentHashMap[ConnectionConfig, KinesisApi]()

  def api(connection: ConnectionConfig): KinesisApi =
    clients.computeIfAbsent(connection, c => new SdkKinesisApi(syncClient(c), c))

  /** Puts `api` behind `connection` in this JVM: how tests run the source over a fake Kinesis. */
  private[sparkkinesis] def install(connection: ConnectionConfig, api: KinesisApi): Unit =
    clients.put(connection, api)

  def credentialsProvider(credentials: CredentialsConfig): AwsCredentialsProvider = credentials match {
    case CredentialsConfig.DefaultChain => DefaultCredentialsProvider.builder().build()
    case CredentialsConfig.StaticKeys(id, secret, None) =>
      StaticCredentialsProvider.create(AwsBasicCredentials.create(id, secret))
    case CredentialsConfig.StaticKeys(id, secret, Some(token)) =>
      StaticCredentialsProvider.create(AwsSessionCredentials.create(id, secret, token))
  }

  private def syncClient(connection: ConnectionConfig): KinesisClient = {
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
