// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source.realtime

import java.util.UUID

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.LocalSpark
import io.github.sparkkinesis.client.{ConnectionConfig, CredentialsConfig}
import io.github.sparkkinesis.client.credentials.AwsCredentials
import io.github.sparkkinesis.client.sdk.KinesisClients
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.options.FetchSettings
import io.github.sparkkinesis.prefetch.ExecutorCursors

/**
 * A real-time task is a user of its connection's clients while it runs: one still calling
 * Kinesis when its query stopped closes the clients its calls built when it ends, instead of
 * leaving them, and their credentials provider, open until another connection's idle eviction.
 */
class KinesisRealTimeReaderClientsSuite extends AnyFunSuite with Matchers with LocalSpark {

  // Nothing listens here: a call fails at once, but builds the client it is made on.
  private val connection = ConnectionConfig("ap-southeast-3", Some("http://127.0.0.1:9"),
    CredentialsConfig.StaticKeys("AKIAREALTIMECLIENTS1", "secret-key-real-time", None))

  test("a real-time task of a stopped query leaves no client or provider open when it ends") {
    val instance = UUID.randomUUID().toString
    val (clientsBefore, providersBefore) = (KinesisClients.openClients, AwsCredentials.live)
    val partition = RealTimeShardPartition(ShardKey("clicks", "shardId-000000000000"),
      ShardPosition.AfterSequence("100"), None, instance, Map.empty)
    val reader = new KinesisRealTimeReaderFactory(connection, FetchSettings(100, 2.0, 0L, 200L))
      .createReader(partition).asInstanceOf[KinesisRealTimeReader]
    ExecutorCursors.forget(instance) // the query stopped while this task was still reading
    try reader.nextWithTimeout(System.currentTimeMillis(), 300L)
    catch { case _: Exception => () } // its calls fail (nothing listens); it made one, building a client
    KinesisClients.openClients should be > clientsBefore
    reader.close()
    KinesisClients.userCount(connection) shouldBe 0
    KinesisClients.openClients shouldBe clientsBefore
    AwsCredentials.live shouldBe providersBefore
  }

  test("a real-time task that starts after its query stopped calls Kinesis for nothing and stays where it starts") {
    val instance = UUID.randomUUID().toString
    ExecutorCursors.forget(instance) // a batch the stop could not cancel
    val (clientsBefore, providersBefore) = (KinesisClients.openClients, AwsCredentials.live)
    val start = ShardPosition.AfterSequence("100")
    val partition = RealTimeShardPartition(ShardKey("clicks", "shardId-000000000000"), start, None, instance, Map.empty)
    val reader = new KinesisRealTimeReaderFactory(connection, FetchSettings(100, 2.0, 0L, 200L))
      .createReader(partition).asInstanceOf[KinesisRealTimeReader]
    reader.nextWithTimeout(System.currentTimeMillis(), 300L).hasRecord shouldBe false
    reader.getOffset.asInstanceOf[ShardPartitionOffset].position shouldBe start
    reader.close()
    KinesisClients.openClients shouldBe clientsBefore
    KinesisClients.userCount(connection) shouldBe 0
    AwsCredentials.live shouldBe providersBefore
  }
}
