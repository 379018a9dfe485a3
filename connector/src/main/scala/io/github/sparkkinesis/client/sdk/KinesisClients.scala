// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.sdk

import java.util.concurrent.ConcurrentHashMap

import software.amazon.awssdk.services.kinesis.{KinesisAsyncClient, KinesisClient}
import io.github.sparkkinesis.client.{ConnectionConfig, ConsumerApi, KinesisApi, KinesisPutApi, SubscriptionTransport}
import io.github.sparkkinesis.client.credentials.AwsCredentials

/**
 * The connector's way to Kinesis in this JVM: the calls of the source, the sink and the
 * consumer manager, on SDK clients built by [[AwsClientFactory]] and kept per
 * [[ConnectionConfig]] by a [[ClientCache]] (bounded, closed when idle or when the last user
 * here lets go). The APIs handed out ask the cache for their client at every call, so a reader
 * that outlives its client is never left with a closed one.
 *
 * Ownership: the clients of a connection are held by their users, counted ([[acquire]] and
 * [[release]], or a [[lease]]): a streaming query on the driver for its life, a query's tasks
 * on each executor until its stop reaches that executor, a sink's writer for its task, a batch
 * read's plan and each of its partition readers, each call of the consumer manager and of the
 * offsets tool. The last user's release closes them, and closing a client releases its
 * credentials provider ([[AwsCredentials]]).
 */
object KinesisClients {
  // A closed client lets go of the credentials provider it was built with.
  private val signerReleased: ConnectionConfig => Unit = c => AwsCredentials.release(c.credentials)
  private val syncClients =
    new ClientCache[KinesisClient]("Kinesis", AwsClientFactory.syncKinesis, closed = signerReleased)
  private val recordsClients =
    new ClientCache[KinesisClient]("Kinesis GetRecords", AwsClientFactory.recordsKinesis, closed = signerReleased)
  /** One HTTP/2 connection pool and event loop for every subscription of a connection. */
  private val asyncClients =
    new ClientCache[KinesisAsyncClient]("Kinesis HTTP/2", AwsClientFactory.asyncKinesis, closed = signerReleased)
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

  /** A user starts using `connection`'s clients in this JVM. */
  def acquire(connection: ConnectionConfig): Unit = users.merge(connection, 1, (a, b) => a + b)

  /** A user of `connection`'s clients in this JVM until the lease is closed (closing it twice releases once). */
  def lease(connection: ConnectionConfig): AutoCloseable = {
    acquire(connection)
    val open = new java.util.concurrent.atomic.AtomicBoolean(true)
    () => if (open.compareAndSet(true, false)) release(connection)
  }

  /** Runs `body` as a user of `connection`'s clients. */
  def using[T](connection: ConnectionConfig)(body: => T): T = {
    val held = lease(connection)
    try body
    finally held.close()
  }

  /** How many users `connection`'s clients have in this JVM. */
  def userCount(connection: ConnectionConfig): Int = Option(users.get(connection)).map(_.intValue).getOrElse(0)

  /** How many SDK clients this JVM holds open, of every kind. */
  def openClients: Int = syncClients.size + recordsClients.size + asyncClients.size

  /**
   * A user stopped using `connection`: its clients are closed when no other user in this JVM
   * holds them (an idle cache entry would be closed later anyway).
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
