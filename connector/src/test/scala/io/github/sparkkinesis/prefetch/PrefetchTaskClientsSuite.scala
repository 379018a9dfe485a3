// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import java.util.UUID

import scala.util.Try

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.LocalSpark
import io.github.sparkkinesis.client.{ConnectionConfig, CredentialsConfig}
import io.github.sparkkinesis.client.credentials.AwsCredentials
import io.github.sparkkinesis.client.sdk.KinesisClients
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.options.FetchSettings

/**
 * A prefetch task is a user of its connection's clients while it runs, and closes the clients
 * it built when it ends if its query stopped meanwhile (a cancelled round finishing its calls),
 * instead of leaving them, and their credentials provider, to the idle eviction. One that
 * starts after the stop builds none.
 */
class PrefetchTaskClientsSuite extends AnyFunSuite with Matchers with LocalSpark {

  // Nothing listens here: a call fails at once, but builds the client it is made on.
  private val connection = ConnectionConfig("ap-southeast-3", Some("http://127.0.0.1:9"),
    CredentialsConfig.StaticKeys("AKIAPREFETCHCLIENTS1", "secret-key-prefetch", None))

  test("a prefetch task of a stopped query leaves no client or provider open when it ends") {
    val instance = UUID.randomUUID().toString
    ExecutorCursors.forget(instance) // the query stopped before this task started
    val (clientsBefore, providersBefore) = (KinesisClients.openClients, AwsCredentials.live)
    val work = PrefetchWork(instance, 7, FetchSettings(100, 2.0, 0L, 200L), 1024L, None, returnWhenCaughtUp = true)
    val task = PrefetchPartition(0,
      Seq(ShardFetchRequest(ShardKey("clicks", "shardId-000000000000"), ShardPosition.AfterSequence("100"))), None)
    // It makes no call (one would fail, nothing listens, but build a client first).
    Try(new PrefetchRDD(spark.sparkContext, Seq(task), connection, work).collect()).get
      .flatMap(_.blocks) shouldBe empty
    KinesisClients.userCount(connection) shouldBe 0
    KinesisClients.openClients shouldBe clientsBefore
    AwsCredentials.live shouldBe providersBefore
  }
}
