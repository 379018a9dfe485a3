// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import java.util.concurrent.{Executors, RejectedExecutionException, TimeUnit}

import scala.util.control.NonFatal

import org.apache.spark.internal.Logging
import org.apache.spark.sql.kinesis.KinesisBlockStore

import io.github.sparkkinesis.threads.DaemonThreads

/**
 * Removes released blocks from the block managers on a thread of its own, in the order asked.
 * Spark removes a block with a call to its block manager master per block, and a batch over
 * 10,000 shards releases 10,000 blocks: the trigger (or the prefetch round) that releases them
 * must not wait for that. [[close]] lets the removals asked for finish, for at most a while.
 */
final class BlockRemover(queryName: String, removeNow: Seq[String] => Unit = names => KinesisBlockStore.remove(names))
  extends Logging {

  private val executor = Executors.newSingleThreadExecutor(new DaemonThreads(s"kinesis-block-remover-$queryName"))

  /** Removes the blocks named, soon; after [[close]] nothing (the query's stop removes all its blocks). */
  def remove(names: Seq[String]): Unit = if (names.nonEmpty) {
    try executor.execute { () =>
        try removeNow(names)
        catch {
          case NonFatal(e) => logWarning(s"Could not remove ${names.size} prefetched blocks of $queryName", e)
        }
      }
    catch {
      case _: RejectedExecutionException => // closed
    }
  }

  /** Takes no more removals; waits up to `timeoutMs` for those asked for. */
  def close(timeoutMs: Long): Unit = {
    executor.shutdown()
    executor.awaitTermination(timeoutMs, TimeUnit.MILLISECONDS)
  }
}
