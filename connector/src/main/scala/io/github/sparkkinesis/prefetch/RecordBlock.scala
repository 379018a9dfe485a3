package io.github.sparkkinesis.prefetch

import java.nio.{ByteBuffer, ByteOrder}
import java.nio.charset.StandardCharsets.{US_ASCII, UTF_8}

import scala.collection.mutable.ArrayBuffer

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
  private val HeaderLength = 5

  def encode(records: Array[KinesisRecord]): Array[Byte] = {
    val writer = new RecordBlockWriter
    records.foreach(writer.add)
    writer.result()
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

  /**
   * Lays records out in a block as they are read, so a prefetch task does not keep them as
   * objects until it stores the block: objects held for `maxFetchDuration` outlive young
   * collections, and copying them cost more CPU than laying them out (make bench, row
   * `polling`). The layout goes into chunks of [[ChunkLength]] bytes and is joined once, by
   * [[result]].
   */
  final class RecordBlockWriter {
    private val chunks = ArrayBuffer.empty[ByteBuffer]
    private var chunk: ByteBuffer = ByteBuffer.allocate(0)
    private var laidOut = HeaderLength.toLong
    private var records = 0
    private var recordBytes = 0L
    private var firstArrival = 0L
    private var lastRecord: KinesisRecord = null

    def count: Int = records

    /** The records' data plus partition keys ([[KinesisRecord.bytes]]), the bytes a block is accounted by. */
    def bytes: Long = recordBytes

    def firstArrivalMillis: Long = firstArrival

    def last: Option[KinesisRecord] = Option(lastRecord)

    def add(r: KinesisRecord): Unit = {
      // Encoding a string the JVM holds as Latin-1 (ASCII keys, sequence numbers) is an array copy.
      val key = r.partitionKey.getBytes(UTF_8)
      // Sequence numbers are decimal digits: one byte per character.
      val sequence = r.sequenceNumber.getBytes(US_ASCII)
      val length = 4 + key.length + 4 + sequence.length + 8 + 8 + 1 + 4 + r.data.length
      if (chunk.remaining() < length) {
        chunk = ByteBuffer.allocate(math.max(ChunkLength, length))
        chunks += chunk
      }
      chunk.putInt(key.length).put(key).putInt(sequence.length).put(sequence)
        .putLong(r.approximateArrivalMillis).putLong(r.subSequenceNumber)
        .put(if (r.endsKinesisRecord) 1.toByte else 0.toByte)
        .putInt(r.data.length).put(r.data)
      laidOut += length
      require(laidOut <= Int.MaxValue - 16, s"a prefetched block of ${records + 1} records would hold $laidOut bytes")
      if (records == 0) firstArrival = r.approximateArrivalMillis
      records += 1
      recordBytes += r.bytes
      lastRecord = r
    }

    /** The block: the format, the record count, and the records laid out so far. */
    def result(): Array[Byte] = {
      val out = ByteBuffer.allocate(laidOut.toInt)
      out.put(Format).putInt(records)
      chunks.foreach(c => out.put(c.array(), 0, c.position()))
      out.array()
    }
  }

  /**
   * Just under 1 MiB: G1 allocates an array of half a region or more outside the young
   * generation, where collections do not copy it, and this one fits a region of small heaps.
   */
  val ChunkLength: Int = (1 << 20) - 1024
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
