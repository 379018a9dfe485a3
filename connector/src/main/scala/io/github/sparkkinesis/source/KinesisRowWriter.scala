package io.github.sparkkinesis.source

import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.catalyst.expressions.codegen.UnsafeRowWriter
import org.apache.spark.unsafe.types.UTF8String

import io.github.sparkkinesis.client.KinesisRecord
import io.github.sparkkinesis.offsets.ShardKey
import io.github.sparkkinesis.prefetch.RecordBlockCursor

/**
 * Writes the rows of one shard ([[io.github.sparkkinesis.KinesisSchema]]: partitionKey, data,
 * stream, shardId, sequenceNumber, approximateArrivalTimestamp, subSequenceNumber) as `UnsafeRow`s, the form
 * Spark works on, into one reused buffer: each row is valid until the next one is written, as
 * Spark's readers expect. Rows come from a prefetched block's bytes or from records read again
 * from Kinesis.
 */
final class KinesisRowWriter(shard: ShardKey) {
  private val writer = new UnsafeRowWriter(7, 2048)
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
    writer.getRow
  }

  /**
   * The cursor's current record, straight from the block's bytes. A string is laid out in an
   * `UnsafeRow` as its UTF-8 bytes, as binary is: the block's UTF-8 is written as it is.
   */
  def write(block: RecordBlockCursor): UnsafeRow = {
    val bytes = block.array
    writer.reset()
    writer.zeroOutNullBytes()
    writer.write(0, bytes, block.keyOffset, block.keyLength)
    writer.write(1, bytes, block.dataOffset, block.dataLength)
    writer.write(2, stream)
    writer.write(3, shardId)
    writer.write(4, bytes, block.sequenceOffset, block.sequenceLength)
    writer.write(5, block.arrivalMillis * 1000L)
    writer.write(6, block.subSequenceNumber)
    writer.getRow
  }
}
