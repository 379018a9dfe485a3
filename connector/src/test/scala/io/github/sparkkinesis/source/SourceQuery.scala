// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import org.apache.spark.sql.connector.read.streaming.{Offset, ReadLimit}

import io.github.sparkkinesis.offsets.KinesisSourceOffset
import io.github.sparkkinesis.options.KinesisSourceOptions

/** One row of the source's output, as a user would select it. */
private[source] final case class Out(stream: String, shardId: String, sequenceNumber: String, data: String,
    partitionKey: String, arrivalMicros: Long)

/**
 * A query's view of a polling stream, driven as Spark drives it: the initial offset, then per
 * trigger latestOffset, planInputPartitions, the partitions' reads and commit, with every
 * offset passed through its JSON as the offset log does. It keeps the offsets it committed
 * and the rows it read.
 */
private[source] class SourceQuery(val source: KinesisMicroBatchStream, opts: KinesisSourceOptions) {
  /** Every offset goes through JSON, as Spark's offset log does. */
  def logged(offset: Offset): KinesisSourceOffset =
    source.deserializeOffset(offset.json()).asInstanceOf[KinesisSourceOffset]

  var committed: KinesisSourceOffset = logged(source.initialOffset())
  /** The initial offset, then the end offset of every batch. */
  val offsets = scala.collection.mutable.ArrayBuffer(committed)
  val batches = scala.collection.mutable.ArrayBuffer.empty[Seq[Out]]

  /** The end offset once prefetching has settled: two looks, a few prefetch rounds apart, agree. */
  def settledEnd(): KinesisSourceOffset = {
    var previous: KinesisSourceOffset = null
    var end = logged(source.latestOffset(committed, ReadLimit.allAvailable()))
    val deadline = System.nanoTime() + 60L * 1000000000L
    while (end != previous) {
      assert(System.nanoTime() < deadline, s"prefetching never settled; last end offset: ${end.json()}")
      Thread.sleep(opts.fetch.maxFetchDurationMs * 3)
      previous = end
      end = logged(source.latestOffset(committed, ReadLimit.allAvailable()))
    }
    end
  }

  /** One trigger: reads the next batch, returns its rows (none when nothing is new) and commits it. */
  def runBatch(): Seq[Out] = {
    val end = settledEnd()
    val rows = read(committed, end)
    commit(end, rows)
    rows
  }

  /** The batch ending at `end` done: its rows are kept and its end committed. */
  def commit(end: KinesisSourceOffset, rows: Seq[Out]): Unit = {
    source.commit(end)
    committed = end
    offsets += end
    batches += rows
  }

  def read(start: KinesisSourceOffset, end: KinesisSourceOffset): Seq[Out] = readTasks(start, end).flatten

  /** Each task's rows, in the order the task returns them. */
  def readTasks(start: KinesisSourceOffset, end: KinesisSourceOffset): Seq[Seq[Out]] =
    partitions(start, end).map { p =>
      val reader = source.createReaderFactory().createReader(p)
      try Iterator.continually(reader).takeWhile(_.next()).map { r =>
          val row = r.get()
          Out(row.getUTF8String(2).toString, row.getUTF8String(3).toString, row.getUTF8String(4).toString,
            new String(row.getBinary(1), "UTF-8"), row.getUTF8String(0).toString, row.getLong(5))
        }.toList
      finally reader.close()
    }

  def partitions(start: Offset, end: Offset): Seq[KinesisInputPartition] =
    source.planInputPartitions(start, end).toSeq.map(_.asInstanceOf[KinesisInputPartition])

  def stop(): Unit = source.stop()
}
