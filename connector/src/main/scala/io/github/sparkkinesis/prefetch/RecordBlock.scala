package io.github.sparkkinesis.prefetch

import java.nio.{ByteBuffer, ByteOrder}
import java.nio.charset.StandardCharsets.UTF_8

import io.github.sparkkinesis.client.KinesisRecord

/**
 * The bytes of a prefetched block: the records one after the other in a flat layout, which
 * the block manager keeps as they are (no serializer on the way in or out) and a batch's
 * reader turns into rows straight from the bytes (see [[RecordBlockCursor]]).
 *
 * Layout (big-endian): format byte, record count (int), then per record: partition key (int
 * length + UTF-8), sequence number (int length + ASCII), arrival millis (long), sub-sequence
 * number (long), whether it ends its Kinesis record (byte; see [[KinesisRecord]]), data (int
 * length + bytes). This replaced Java serialization of `Array[KinesisRecord]`, which cost more
 * CPU than everything else on the read path together (make bench, row `polling`).
 */
object RecordBlock {
  val Format: Byte = 2

  def encode(records: Array[KinesisRecord]): Array[Byte] = {
    val keys = records.map(_.partitionKey.getBytes(UTF_8))
    var size = 5L
    var i = 0
    while (i < records.length) {
      size += 4 + keys(i).length + 4 + records(i).sequenceNumber.length + 8 + 8 + 1 + 4 + records(i).data.length
      i += 1
    }
    require(size <= Int.MaxValue - 16, s"a prefetched block of ${records.length} records would hold $size bytes")
    val out = ByteBuffer.allocate(size.toInt)
    out.put(Format).putInt(records.length)
    i = 0
    while (i < records.length) {
      val r = records(i)
      out.putInt(keys(i).length).put(keys(i))
      // Sequence numbers are decimal digits: one byte per character.
      val sequence = r.sequenceNumber
      out.putInt(sequence.length)
      var c = 0
      while (c < sequence.length) { out.put(sequence.charAt(c).toByte); c += 1 }
      out.putLong(r.approximateArrivalMillis).putLong(r.subSequenceNumber).put(
        if (r.endsKinesisRecord) 1.toByte else 0.toByte)
      out.putInt(r.data.length).put(r.data)
      i += 1
    }
    out.array()
  }

  /** The records back as objects (tests, and readers that want them whole). */
  def decode(bytes: ByteBuffer): Array[KinesisRecord] = {
    val cursor = new RecordBlockCursor(bytes)
    Array.fill(cursor.count) {
      cursor.next()
      KinesisRecord(cursor.partitionKey, cursor.data, cursor.sequenceNumber, cursor.arrivalMillis,
        cursor.subSequenceNumber, cursor.endsKinesisRecord)
    }
  }
}

/**
 * Walks a block's records in place: after each [[next]], the current record's fields are
 * slices of [[array]] (offsets and lengths), so a row can be written from them with no object
 * per record.
 */
final class RecordBlockCursor(block: ByteBuffer) {
  private val buffer: ByteBuffer = {
    val heap = if (block.hasArray) block.duplicate()
    else {
      val copy = ByteBuffer.allocate(block.remaining())
      copy.put(block.duplicate()).flip()
      copy
    }
    heap.order(ByteOrder.BIG_ENDIAN)
  }
  val array: Array[Byte] = buffer.array()
  private val base = buffer.arrayOffset()
  private var at = buffer.position()

  require(buffer.remaining() >= 5 && array(base + at) == RecordBlock.Format,
    s"not a prefetched block of this connector version (format ${if (buffer.remaining() > 0) array(base + at)
      else "none"})")
  val count: Int = buffer.getInt(at + 1)
  at += 5
  private var read = 0

  var keyOffset, keyLength, sequenceOffset, sequenceLength, dataOffset, dataLength = 0
  var arrivalMillis = 0L
  var subSequenceNumber = 0L
  var endsKinesisRecord = true

  def hasNext: Boolean = read < count

  def next(): Unit = {
    keyLength = buffer.getInt(at); keyOffset = base + at + 4; at += 4 + keyLength
    sequenceLength = buffer.getInt(at); sequenceOffset = base + at + 4; at += 4 + sequenceLength
    arrivalMillis = buffer.getLong(at); at += 8
    subSequenceNumber = buffer.getLong(at); at += 8
    endsKinesisRecord = buffer.get(at) != 0; at += 1
    dataLength = buffer.getInt(at); dataOffset = base + at + 4; at += 4 + dataLength
    read += 1
  }

  def partitionKey: String = new String(array, keyOffset, keyLength, UTF_8)
  def sequenceNumber: String = new String(array, sequenceOffset, sequenceLength, UTF_8)
  def data: Array[Byte] = java.util.Arrays.copyOfRange(array, dataOffset, dataOffset + dataLength)
}
