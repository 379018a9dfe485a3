// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import java.util.concurrent.{CompletableFuture, CountDownLatch, TimeUnit}

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.{FakeKinesisApi, LocalSpark}
import io.github.sparkkinesis.client.{KinesisApi, RecordBatch, ShardDescription}
import io.github.sparkkinesis.client.sdk.KinesisClients
import io.github.sparkkinesis.kpl.RangeCheck
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.options.KinesisSourceOptions

/**
 * ARCHITECTURE.md invariant 14: no remote call under the prefetcher's lock. While a prefetch
 * round's Spark job waits on a Kinesis call that does not answer, the stream thread's questions
 * to the prefetcher (what is buffered, which blocks hold a range, the metrics) are answered.
 */
class PrefetcherLockSuite extends AnyFunSuite with Matchers with LocalSpark {

  private val options = KinesisSourceOptions.parse(Map("streamName" -> "clicks", "region" -> "eu-south-2"))
  private val shard = ShardKey("clicks", "shardId-000000000000")

  /** A Kinesis whose GetRecords does not answer until `answer` opens; `calling` opens at the first call. */
  private final class SilentKinesis(fake: FakeKinesisApi) extends KinesisApi {
    val calling = new CountDownLatch(1)
    val answer = new CountDownLatch(1)
    override def listShards(stream: String, pageSize: Int): Seq[ShardDescription] = fake.listShards(stream, pageSize)
    override def streamCreatedAt(stream: String): Long = fake.streamCreatedAt(stream)
    override def shardIterator(stream: String, shardId: String, position: ShardPosition): String =
      fake.shardIterator(stream, shardId, position)
    override def getRecords(
        stream: String, iterator: String, limit: Int, rangeCheck: Option[RangeCheck]): RecordBatch = {
      calling.countDown()
      answer.await(2, TimeUnit.MINUTES)
      fake.getRecords(stream, iterator, limit, rangeCheck)
    }
  }

  test("while a prefetch round waits on Kinesis, the stream thread's questions to the prefetcher are answered") {
    val fake = new FakeKinesisApi().createStream("clicks", 1)
    fake.putMany("clicks", shard.shardId, "r", 3)
    val kinesis = new SilentKinesis(fake)
    KinesisClients.install(options.connection, kinesis)
    val p = new Prefetcher(spark.sparkContext, options.connection,
      PrefetchSettings(options.fetch, options.buffer.shardsPerTask, options.buffer.fetchBufferSize), "lock-query")
    try {
      p.track(Map(shard -> ShardPosition.TrimHorizon), Map.empty)
      p.start()
      withClue("a prefetch task called GetRecords: ")(kinesis.calling.await(60, TimeUnit.SECONDS) shouldBe true)
      // Asked from another thread, as the stream thread asks; each answer comes while the call waits.
      val asked = CompletableFuture.supplyAsync { () =>
        p.version
        p.advanced(Map(shard -> ShardPosition.TrimHorizon))
        p.blocks(Seq((shard, ShardPosition.TrimHorizon, ShardPosition.AfterSequence("1"))))
        p.metrics
        p.bufferFull
      }
      withClue("the prefetcher answered while its round waited on Kinesis: ")(
        asked.get(30, TimeUnit.SECONDS) shouldBe false)
      kinesis.calling.getCount shouldBe 0
      kinesis.answer.getCount shouldBe 1 // the call was still waiting when the answers came
    } finally {
      kinesis.answer.countDown()
      p.stop()
      KinesisClients.uninstall(options.connection)
    }
  }
}
