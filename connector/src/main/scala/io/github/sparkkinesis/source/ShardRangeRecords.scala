// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import java.nio.ByteBuffer

import org.apache.spark.internal.Logging
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.kinesis.KinesisBlockStore

import io.github.sparkkinesis.client.KinesisApi
import io.github.sparkkinesis.options.FetchSettings
import io.github.sparkkinesis.offsets.ShardPosition
import io.github.sparkkinesis.polling.ShardRangeReader
import io.github.sparkkinesis.prefetch.RecordBlockCursor

/**
 * The rows of a shard range: from the prefetched blocks while they are there, then from
 * Kinesis by sequence range for whatever is not (an executor holding a block died, or the
 * driver restarted and knows no blocks). Either way the same records come out. A block's rows
 * are read in place from its bytes ([[BlockRecordRow]]); records read again are written into
 * one reused buffer ([[KinesisRowWriter]]). Records retention deleted since fail the read or,
 * with `failOnDataLoss` false, are skipped and counted with `onDataLoss` (see [[ShardRangeReader]]).
 */
object ShardRangeRecords extends Logging {

  def apply(range: ShardRange, api: => KinesisApi, fetch: FetchSettings,
      readBlock: String => Option[Array[ByteBuffer]] = KinesisBlockStore.get,
      onDataLoss: () => Unit = () => ()): Iterator[InternalRow] = {
    var position = range.start
    val fromBlocks = range.blocks.iterator
      .takeWhile(block => block.from == position)
      .map(block => block -> readBlock(block.name))
      .takeWhile { case (block, records) =>
        if (records.isEmpty) logWarning(s"Prefetched block ${block.name} of ${range.shard} is gone; " +
          s"reading its records from Kinesis again")
        records.isDefined
      }
      .flatMap { case (block, bytes) =>
        position = block.to
        val cursor = new RecordBlockCursor(bytes.get)
        val row = new BlockRecordRow(cursor, range.shard, fetch.recordIds)
        new Iterator[InternalRow] {
          override def hasNext: Boolean = cursor.hasNext
          override def next(): InternalRow = { cursor.next(); row }
        }
      }
    // `++` takes its argument by name: this runs once the blocks are used up, and reads from
    // Kinesis whatever they did not cover.
    fromBlocks ++ {
      if (ShardPosition.covers(position, range.end)) Iterator.empty
      else {
        val rows = new KinesisRowWriter(range.shard, fetch.recordIds)
        new ShardRangeReader(api, range.shard, position, range.end, fetch, rangeCheck = range.rangeCheck,
          onDataLoss = onDataLoss).map(rows.write)
      }
    }
  }
}
