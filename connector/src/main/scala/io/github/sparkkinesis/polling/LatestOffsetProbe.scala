// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.polling

import java.util.concurrent.{Callable, ExecutionException, Executors, ThreadFactory, TimeUnit}

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.client.KinesisApi
import io.github.sparkkinesis.kpl.RangeCheck
import io.github.sparkkinesis.options.FetchSettings
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.time.{Clock, SystemClock}

/**
 * Finds, on the driver, how far each shard can be read now: it reads forward from the batch's
 * start for up to `maxFetchDuration` or until it is caught up, and reports the last sequence
 * number it saw. The records themselves are read again on the executors, by that exact range.
 */
final class LatestOffsetProbe(api: KinesisApi, settings: FetchSettings, clock: Clock = SystemClock,
    rangeChecks: Map[ShardKey, RangeCheck] = Map.empty) extends AutoCloseable {

  private val pool = Executors.newFixedThreadPool(LatestOffsetProbe.Threads,
    new ThreadFactory {
      override def newThread(r: Runnable): Thread = {
        val t = new Thread(r, "kinesis-latest-offset-probe")
        t.setDaemon(true)
        t
      }
    })

  /** The position each of `shards` can be read up to now; none is ever behind its start. */
  def advance(shards: Map[ShardKey, ShardPosition]): Map[ShardKey, ShardPosition] = {
    val deadline = clock.nanoTime() + settings.maxFetchDurationMs * 1000000L
    val work = shards.toSeq.map { case (key, start) =>
      new Callable[(ShardKey, ShardPosition)] { def call() = key -> readAhead(key, start, deadline) }
    }
    pool.invokeAll(work.asJava).asScala.map { future =>
      try future.get()
      catch { case e: ExecutionException => throw e.getCause } // the clear error
    }.toMap
  }

  private def readAhead(key: ShardKey, start: ShardPosition, deadline: Long): ShardPosition = {
    if (start.isInstanceOf[ShardPosition.ShardEnd]) return start
    val cursor = new ShardCursor(api, key, start, settings, clock, rangeChecks.get(key))
    var caughtUp = false
    while (!cursor.isEnded && !caughtUp && clock.nanoTime() < deadline) {
      cursor.fetch()
      caughtUp = cursor.atTip
    }
    cursor.position
  }

  override def close(): Unit = {
    pool.shutdownNow()
    pool.awaitTermination(10, TimeUnit.SECONDS)
  }
}

object LatestOffsetProbe {
  val Threads = 16
}
