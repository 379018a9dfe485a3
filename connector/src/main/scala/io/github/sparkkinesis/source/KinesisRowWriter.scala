// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.catalyst.expressions.codegen.UnsafeRowWriter
import org.apache.spark.unsafe.types.UTF8String

import io.github.sparkkinesis.client.KinesisRecord
import io.github.sparkkinesis.offsets.ShardKey

/**
 * Writes the rows of one shard ([[io.github.sparkkinesis.KinesisSchema]]: partitionKey, data,
 * stream, shardId, sequenceNumber, approximateArrivalTimestamp, subSequenceNumber) as `UnsafeRow`s, the form
 * Spark works on, into one reused buffer: each row is valid until the next one is written, as
 * Spark's readers expect. Rows of records read from Kinesis (read again, or in real-time mode);
 * prefetched blocks' rows are [[BlockRecordRow]]s. With `recordIds`, an eighth column holds
 * the record's id, null where it has none.
 */
final class KinesisRowWriter(shard: ShardKey, recordIds: Boolean = false) {
  private val writer = new UnsafeRowWriter(if (recordIds) 8 else 7, 2048)
  private val stream = UTF8String.fromString(shard.stream)
  private val shardId = UTF8String.fromString(shard.shardId)

  def write(record: KinesisRecord): UnsafeRow = {
    writer.reset()
    writer.zeroOutNullBytes()
    writer.write(0, UTF8String.fromString(record.partitionKey))
    writer.write(1, record.data)
    writer.write(2, stream)
    writer.write(3, shardId)
    writer.write(4, UTF8String.fromString(record.sequenceNumber))
    writer.write(5, record.approximateArrivalMillis * 1000L)
    writer.write(6, record.subSequenceNumber)
    if (recordIds) {
      if (record.recordId.isEmpty) writer.setNullAt(7) else writer.write(7, UTF8String.fromString(record.recordId.get))
    }
    writer.getRow
  }
}
