package io.github.sparkkinesis.polling

import java.util.concurrent.{ConcurrentHashMap, Executors, ThreadFactory, TimeUnit}

import scala.concurrent.{Await, ExecutionContext, Future}
import scala.concurrent.duration.Duration
import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.client.KinesisApi
import io.github.sparkkinesis.options.FetchSettings
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}

/**
 * Finds, on the driver, how far each shard can be read now: it reads forward from the batch's
 * start for up to `maxFetchDuration` or until it is caught up, and reports the last sequence
 * number it saw. The records themselves are read again on the executors, by that exact range.
 * Cursors are kept between triggers so an idle shard costs one paced GetRecords per trigger.
 */
final class LatestOffsetProbe(api: KinesisApi, settings: FetchSettings, clock: Clock = SystemClock)
  extends AutoCloseable {

  private val cursors = new ConcurrentHashMap[ShardKey, ShardCursor]()
  private val pool = Executors.newFixedThreadPool(LatestOffsetProbe.Threads, new ThreadFactory {
    override def newThread(r: Runnable): Thread = {
      val t = new Thread(r, "kinesis-latest-offset-probe")
      t.setDaemon(true)
      t
    }
  })
  private implicit val ec: ExecutionContext = ExecutionContext.fromExecutor(pool)

  /** The position each of `shards` can be read up to now; none is ever behind its start. */
  def advance(shards: Map[ShardKey, ShardPosition]): Map[ShardKey, ShardPosition] = {
    val deadline = clock.nanoTime() + settings.maxFetchDurationMs * 1000000L
    val work = shards.toSeq.map { case (key, start) => Future(key -> readAhead(key, start, deadline)) }
    val result = Await.result(Future.sequence(work), Duration.Inf).toMap
    cursors.keySet().asScala.filterNot(shards.contains).foreach(cursors.remove)
    result
  }

  private def readAhead(key: ShardKey, start: ShardPosition, deadline: Long): ShardPosition = {
    if (start.isInstanceOf[ShardPosition.ShardEnd]) return start
    val cached = Option(cursors.get(key)).filter(_.position == start)
    val cursor = cached.getOrElse(new ShardCursor(api, key, start, settings, clock))
    cursors.put(key, cursor)
    var caughtUp = false
    while (!cursor.isEnded && !caughtUp && clock.nanoTime() < deadline) {
      caughtUp = cursor.fetch().millisBehindLatest == 0
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
