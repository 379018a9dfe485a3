// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client

import java.util.concurrent.ConcurrentHashMap

import software.amazon.awssdk.services.kinesis.{KinesisAsyncClient, KinesisClient}

/**
 * The connector's way to Kinesis in this JVM: the calls of the source, the sink and the
 * consumer manager, on SDK clients built by [[AwsClientFactory]] and kept per
 * [[ConnectionConfig]] by a [[ClientCache]] (bounded, closed when idle or when the last query
 * using them here stops). The APIs handed out ask the cache for their client at every call,
 * so a reader that outlives its client is never left with a closed one.
 *
 * Queries register with [[acquire]] and [[release]], so a query's stop closes the clients only
 * no other query in this JVM uses.
 */
object KinesisClients {
  private val syncClients = new ClientCache[KinesisClient]("Kinesis", AwsClientFactory.syncKinesis)
  private val recordsClients = new ClientCache[KinesisClient]("Kinesis GetRecords", AwsClientFactory.recordsKinesis)
  /** One HTTP/2 connection pool and event loop for every subscription of a connection. */
  private val asyncClients = new ClientCache[KinesisAsyncClient]("Kinesis HTTP/2", AwsClientFactory.asyncKinesis)
  private val users = new ConcurrentHashMap[ConnectionConfig, Integer]()

  private val installed = new ConcurrentHashMap[ConnectionConfig, KinesisApi]()

  def api(connection: ConnectionConfig): KinesisApi =
    Option(installed.get(connection)).getOrElse(sdkApi(connection))

  /** The sink's PutRecords, on the same client (and connections) as the reads. */
  def putApi(connection: ConnectionConfig): KinesisPutApi = sdkApi(connection)

  /** Enhanced fan-out's control plane (consumers) over HTTP/1.1, which every endpoint serves. */
  def consumerApi(connection: ConnectionConfig): ConsumerApi =
    new SdkConsumerApi(() => syncClients.get(connection), connection)

  /** SubscribeToShard, over HTTP/2. */
  def transport(connection: ConnectionConfig): SubscriptionTransport =
    new SdkSubscriptionTransport(() => asyncClients.get(connection), connection.credentials, connection.sdkDecoding)

  /** A query starts using `connection` in this JVM. */
  def acquire(connection: ConnectionConfig): Unit = users.merge(connection, 1, (a, b) => a + b)

  /**
   * A query stopped using `connection`: its clients are closed when no other query in this JVM
   * uses them (an idle cache entry would be closed later anyway).
   */
  def release(connection: ConnectionConfig): Unit = {
    val left = users.computeIfPresent(connection, (_, n) => if (n <= 1) null else n - 1)
    if (left == null) {
      syncClients.close(connection)
      recordsClients.close(connection)
      asyncClients.close(connection)
    }
  }

  private def sdkApi(connection: ConnectionConfig): SdkKinesisApi =
    new SdkKinesisApi(() => syncClients.get(connection), connection, () => recordsClients.get(connection))

  /** Puts `api` behind `connection` in this JVM: how tests run the source over a fake Kinesis. */
  private[sparkkinesis] def install(connection: ConnectionConfig, api: KinesisApi): Unit =
    installed.put(connection, api)

  /** Gives `connection` its real Kinesis again (see [[install]]). */
  private[sparkkinesis] def uninstall(connection: ConnectionConfig): Unit = installed.remove(connection)
}
