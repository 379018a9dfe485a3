// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.client.{ConnectionConfig, CredentialsConfig}
import io.github.sparkkinesis.client.sdk.KinesisClients
import io.github.sparkkinesis.offsets.ShardKey

/** What a stopping query lets go of on the executors: every reader, and its hold on the clients. */
class ReaderLifecycleSuite extends AnyFunSuite with Matchers {

  test("a stopping query sends its last job to every live executor, those that only polled as well") {
    val readers = new ReaderOwnership
    readers.executorsAlive(Set("driver", "executor_host_1", "executor_host_2"))
    // host_1 polls a shard (no subscription reported); host_2 ran tasks whose shards moved on.
    readers.readerAt(ShardKey("s", "shardId-000000000000"), "executor_host_1")
    readers.stopTargets(except = "driver") shouldBe Seq("executor_host_1", "executor_host_2")
  }

  test("a query's tasks hold the clients of their JVM until its stop reaches it, once however many tasks ran") {
    val connection = ConnectionConfig("ap-south-2", None, CredentialsConfig.DefaultChain)
    ExecutorCursors.holdClients("query-a", connection)
    ExecutorCursors.holdClients("query-a", connection)
    ExecutorCursors.holdClients("query-b", connection)
    KinesisClients.userCount(connection) shouldBe 2
    ExecutorCursors.forget("query-a")
    KinesisClients.userCount(connection) shouldBe 1
    // A task of a stopped query that starts late takes no hold that nobody would let go of.
    ExecutorCursors.holdClients("query-a", connection)
    KinesisClients.userCount(connection) shouldBe 1
    ExecutorCursors.forget("query-b")
    KinesisClients.userCount(connection) shouldBe 0
  }
}
