package io.github.sparkkinesis.polling

import java.util.concurrent.{Callable, ConcurrentHashMap, ExecutionException, Executors, ThreadFactory, TimeUnit}

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.client.KinesisApi
import io.github.sparkkinesis.kpl.HashKeyRange
import io.github.sparkkinesis.options.FetchSettings
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}

/**
 * Finds, on the driver, how far each shard can be read now: it reads forward from the batch's
 * start for up to `maxFetchDuration` or until it is caught up, and reports the last sequence
 * number it saw. The records themselves are read again on the executors, by that exact range.
 * Cursors are kept between triggers so an idle shard costs one paced GetRecords per trigger.
 */
final class LatestOffsetProbe(api: KinesisApi, settings: FetchSettings, clock: Clock = SystemClock,
    hashRanges: Map[ShardKey, HashKeyRange] = Map.empty) extends AutoCloseable {

  private val cursors = new ConcurrentHashMap[ShardKey, ShardCursor]()
  private val pool = Executors.newFixedThreadPool(LatestOffsetProbe.Threads, new ThreadFactory {
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
    val result = pool.invokeAll(work.asJava).asScala.map { future =>
      try future.get() catch { case e: ExecutionException => throw e.getCause } // the clear error
    }.toMap
    cursors.keySet().asScala.filterNot(shards.contains).foreach(cursors.remove)
    result
  }

  private def readAhead(key: ShardKey, start: ShardPosition, deadline: Long): ShardPosition = {
    if (start.isInstanceOf[ShardPosition.ShardEnd]) return start
    val cached = Option(cursors.get(key)).filter(_.position == start)
    val cursor = cached.getOrElse(new ShardCursor(api, key, start, settings, clock, hashRanges.get(key)))
    cursors.put(key, cursor)
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
