// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import java.util.Arrays

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.BaseGenericInternalRow
import org.apache.spark.unsafe.types.UTF8String

import io.github.sparkkinesis.offsets.ShardKey
import io.github.sparkkinesis.prefetch.RecordBlockCursor

/**
 * A prefetched block's current record as a row of [[io.github.sparkkinesis.KinesisSchema]], read
 * in place from the block's bytes. Spark puts a projection over every streaming scan that copies
 * each row into an `UnsafeRow` of its own; writing an `UnsafeRow` here as well copied every
 * record twice. Strings are views of the block (its bytes are never written again); the data
 * is copied when asked for, as `getBinary` must return an array of its own. The row follows the
 * cursor, as Spark's readers expect; `copy()` keeps the values. With `recordIds`, an eighth
 * column holds the record's id, null where it has none.
 */
final class BlockRecordRow(cursor: RecordBlockCursor, shard: ShardKey, recordIds: Boolean = false)
  extends InternalRow with BaseGenericInternalRow {
  private val stream = UTF8String.fromString(shard.stream)
  private val shardId = UTF8String.fromString(shard.shardId)

  override val numFields: Int = if (recordIds) 8 else 7

  override def isNullAt(ordinal: Int): Boolean = ordinal == 7 && cursor.recordIdLength < 0

  override def getUTF8String(ordinal: Int): UTF8String = ordinal match {
    case 0 => UTF8String.fromBytes(cursor.array, cursor.keyOffset, cursor.keyLength)
    case 2 => stream
    case 3 => shardId
    case 4 => UTF8String.fromBytes(cursor.array, cursor.sequenceOffset, cursor.sequenceLength)
    case 7 if recordIds && cursor.recordIdLength >= 0 =>
      UTF8String.fromBytes(cursor.array, cursor.recordIdOffset, cursor.recordIdLength)
    case 7 if recordIds => null
    case _ => throw new IllegalArgumentException(s"column $ordinal of a Kinesis row is not a string")
  }

  override def getBinary(ordinal: Int): Array[Byte] =
    if (ordinal == 1) Arrays.copyOfRange(cursor.array, cursor.dataOffset, cursor.dataOffset + cursor.dataLength)
    else throw new IllegalArgumentException(s"column $ordinal of a Kinesis row is not binary")

  override def getLong(ordinal: Int): Long = ordinal match {
    case 5 => cursor.arrivalMillis * 1000L // timestamps are microseconds
    case 6 => cursor.subSequenceNumber
    case _ => throw new IllegalArgumentException(s"column $ordinal of a Kinesis row is not a long")
  }

  override protected def genericGet(ordinal: Int): Any = ordinal match {
    case 1 => getBinary(1)
    case 5 | 6 => getLong(ordinal)
    case 7 if isNullAt(7) => null
    case _ => getUTF8String(ordinal)
  }

  override def setNullAt(i: Int): Unit = throw new UnsupportedOperationException("a Kinesis row is read-only")
  override def update(i: Int, value: Any): Unit = throw new UnsupportedOperationException("a Kinesis row is read-only")
}
