// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.LocalSpark
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.options.KinesisSourceOptions

/** The prefetch thread's own life, on a local session: whatever ends it, the stream hears of it. */
class PrefetcherSuite extends AnyFunSuite with Matchers with LocalSpark {

  private val options = KinesisSourceOptions.parse(Map("streamName" -> "clicks", "region" -> "us-east-1"))

  private def prefetcher(slots: org.apache.spark.SparkContext => Int) =
    new Prefetcher(spark.sparkContext, options.connection,
      PrefetchSettings(options.fetch, options.buffer.shardsPerTask, options.buffer.fetchBufferSize), "test-query",
      slots)

  test("a fatal error of the prefetch thread ends prefetching and is the query's error, rather than a wait") {
    val missing = new NoClassDefFoundError("a class of the cluster's classpath")
    val p = prefetcher(_ => throw missing)
    try {
      p.track(Map(ShardKey("clicks", "shardId-000000000000") -> ShardPosition.TrimHorizon), Map.empty)
      p.start()
      // Without the fix the thread is gone while the prefetcher still runs: this waits its full minute and returns.
      val thrown = intercept[NoClassDefFoundError](p.awaitRoundAfter(0, 60000))
      (thrown should be).theSameInstanceAs(missing)
      p.isRunning shouldBe false
    } finally p.stop()
  }
}
