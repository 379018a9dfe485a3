package io.github.sparkkinesis.prefetch

import java.util.concurrent.ConcurrentHashMap

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}

/**
 * Shard readers (GetRecords cursors, EFO subscriptions) kept on an executor between prefetch tasks, so the next task for a shard
 * continues with the same shard iterator and pacing instead of asking Kinesis for a new
 * iterator each time. The driver sends a shard's tasks back to the executor that ran the
 * last one, which is what makes the cache hit.
 */
private[sparkkinesis] object ExecutorCursors {
  private final case class Key(streamInstance: String, shard: ShardKey)
  private final case class Entry(cursor: ShardReader, releasedNanos: Long)

  // Kinesis shard iterators expire after five minutes; a cursor idle that long is useless.
  private val MaxIdleNanos = 5L * 60 * 1000000000L
  private val cache = new ConcurrentHashMap[Key, Entry]()

  /** The cached cursor when it stands exactly at `from`, else a new one. Exclusive until released. */
  def acquire(streamInstance: String, shard: ShardKey, from: ShardPosition)(create: => ShardReader): ShardReader = {
    evictIdle()
    Option(cache.remove(Key(streamInstance, shard))).map(_.cursor) match {
      case Some(reader) if reader.position == from => reader
      case other =>
        other.foreach(_.close()) // stands elsewhere: its answer was lost with a failed task
        create
    }
  }

  def release(streamInstance: String, cursor: ShardReader): Unit =
    cache.put(Key(streamInstance, cursor.shard), Entry(cursor, System.nanoTime()))

  /** Forgets every cursor of a stream instance (its query stopped). */
  def forget(streamInstance: String): Unit =
    cache.keySet().asScala.filter(_.streamInstance == streamInstance)
      .foreach(k => Option(cache.remove(k)).foreach(_.cursor.close()))

  def size: Int = cache.size()

  private def evictIdle(): Unit = {
    val now = System.nanoTime()
    cache.entrySet().asScala.filter(e => now - e.getValue.releasedNanos > MaxIdleNanos)
      .foreach(e => if (cache.remove(e.getKey, e.getValue)) e.getValue.cursor.close())
  }
}
