// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import java.util.concurrent.{ConcurrentLinkedQueue, CountDownLatch, TimeUnit}

import scala.jdk.CollectionConverters._

import org.apache.logging.log4j.{Level, LogManager}
import org.apache.logging.log4j.core.{LogEvent, LoggerContext}
import org.apache.logging.log4j.core.appender.AbstractAppender
import org.apache.logging.log4j.core.config.{LoggerConfig, Property}
import org.apache.spark.scheduler.{SparkListener, SparkListenerJobStart}
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.LocalSpark
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.options.KinesisSourceOptions

/** The prefetch thread's own life, on a local session: whatever ends it, the stream hears of it. */
class PrefetcherSuite extends AnyFunSuite with Matchers with LocalSpark {

  private val options = KinesisSourceOptions.parse(Map("streamName" -> "clicks", "region" -> "us-east-1"))

  private def prefetcher(slots: org.apache.spark.SparkContext => Int, options: KinesisSourceOptions = options) =
    new Prefetcher(spark.sparkContext, options.connection,
      PrefetchSettings(options.fetch, options.buffer.shardsPerTask, options.buffer.fetchBufferSize), "test-query",
      slots)

  /** What Spark's closure cleaner says at DEBUG while `body` runs: a line for every lambda it cleans. */
  private def closuresCleaned(body: => Unit): Seq[String] = {
    val name = "org.apache.spark.util.ClosureCleaner"
    val said = new ConcurrentLinkedQueue[String]
    val appender = new AbstractAppender("closures-cleaned", null, null, true, Property.EMPTY_ARRAY) {
      override def append(event: LogEvent): Unit = said.add(event.getMessage.getFormattedMessage)
    }
    appender.start()
    val context = LogManager.getContext(false).asInstanceOf[LoggerContext]
    val logger = new LoggerConfig(name, Level.DEBUG, false)
    logger.addAppender(appender, Level.DEBUG, null)
    context.getConfiguration.addLogger(name, logger)
    context.updateLoggers()
    try body
    finally {
      context.getConfiguration.removeLogger(name)
      context.updateLoggers()
      appender.stop()
    }
    said.asScala.toSeq.filter(_.contains("Cleaning indylambda closure"))
  }

  test("a prefetch round has Spark clean no lambda (which reads a class file with ASM and keeps the JIT busy)") {
    val unreachable = KinesisSourceOptions.parse(
      Map("streamName" -> "clicks", "region" -> "us-east-1", "endpoint" -> "http://127.0.0.1:1"))
    // A job given a lambda is seen cleaned: the capture works.
    closuresCleaned(spark.sparkContext.parallelize(1 to 2).map(_ + 1).collect()) should not be empty
    val roundStarted = new CountDownLatch(1)
    val listener = new SparkListener {
      override def onJobStart(job: SparkListenerJobStart): Unit =
        if (Option(job.properties).exists(_.getProperty("spark.jobGroup.id", "").startsWith("kinesis-prefetch-"))) {
          roundStarted.countDown()
        }
    }
    spark.sparkContext.addSparkListener(listener)
    val cleaned = closuresCleaned {
      val p = prefetcher(_ => 2, unreachable)
      try {
        p.track(Map(ShardKey("clicks", "shardId-000000000000") -> ShardPosition.TrimHorizon), Map.empty)
        p.start()
        withClue("no prefetch round's job started within 60 s: ")(roundStarted.await(60,
          TimeUnit.SECONDS) shouldBe true)
      } finally p.stop()
    }
    spark.sparkContext.removeSparkListener(listener)
    cleaned shouldBe empty
  }

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
