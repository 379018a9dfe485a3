// SPDX-License-Identifier: Apache-2.0
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
 * number (long), flags (byte: 1 = it ends its Kinesis record, see [[KinesisRecord]]; 2 = a
 * record id follows), the record id when flagged (int length + UTF-8), data (int length + bytes).
 * Records without an id (those of writers without `recordIds`) take no byte more. This replaced Java serialization of `Array[KinesisRecord]`, which cost more
 * CPU than everything else on the read path together (make bench, row `polling`).
 *
 * A block is kept as chunks of at most [[ChunkLength]] bytes (the header in a chunk of its own;
 * a record never spans two chunks, unless it is longer than a chunk and has one to itself), never
 * joined into one array: a block of 64 MiB in one array needs 64 free regions side by side in
 * G1, which a heap full of other blocks may not have, and joining copied every byte once more.
 * Spark keeps the chunks as they are in memory and writes them one after the other to disk or
 * the network, so a block read back from there is one buffer with the same layout.
 */
object RecordBlock {
  val Format: Byte = 3
  private[prefetch] val EndsKinesisRecord = 1
  private[prefetch] val HasRecordId = 2
  private val HeaderLength = 5

  def encode(records: Array[KinesisRecord]): Array[ByteBuffer] = {
    val writer = new RecordBlockWriter
    records.foreach(writer.add)
    writer.result()
  }

  /** The records back as objects (tests, and readers that want them whole). */
  def decode(chunks: Array[ByteBuffer]): Array[KinesisRecord] = {
    val cursor = new RecordBlockCursor(chunks)
    Array.fill(cursor.count) {
      cursor.next()
      KinesisRecord(cursor.partitionKey, cursor.data, cursor.sequenceNumber, cursor.arrivalMillis,
        cursor.subSequenceNumber, cursor.endsKinesisRecord, cursor.recordId)
    }
  }

  /**
   * Lays records out in a block as they are read, so a prefetch task does not keep them as
   * objects until it stores the block: objects held for `maxFetchDuration` outlive young
   * collections, and copying them cost more CPU than laying them out (make bench, row
   * `polling`). The layout goes into chunks of [[ChunkLength]] bytes, which [[result]] hands
   * over as the block.
   */
  final class RecordBlockWriter {
    private val chunks = ArrayBuffer.empty[ByteBuffer]
    private var chunk: ByteBuffer = ByteBuffer.allocate(0)
    private var nextChunkLength = FirstChunkLength
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
      val id = if (r.recordId.isEmpty) null else r.recordId.get.getBytes(UTF_8)
      val idLength = if (id == null) 0 else 4 + id.length
      val length = 4 + key.length + 4 + sequence.length + 8 + 8 + 1 + idLength + 4 + r.data.length
      if (chunk.remaining() < length) {
        chunk = ByteBuffer.allocate(math.max(nextChunkLength, length))
        nextChunkLength = math.min(nextChunkLength * 2, ChunkLength)
        chunks += chunk
      }
      chunk.putInt(key.length).put(key).putInt(sequence.length).put(sequence)
        .putLong(r.approximateArrivalMillis).putLong(r.subSequenceNumber)
        .put(((if (r.endsKinesisRecord) EndsKinesisRecord else 0) | (if (id == null) 0 else HasRecordId)).toByte)
      if (id != null) chunk.putInt(id.length).put(id)
      chunk.putInt(r.data.length).put(r.data)
      laidOut += length
      require(laidOut <= Int.MaxValue - 16, s"a prefetched block of ${records + 1} records would hold $laidOut bytes")
      if (records == 0) firstArrival = r.approximateArrivalMillis
      records += 1
      recordBytes += r.bytes
      lastRecord = r
    }

    /**
     * The block: a header chunk (the format and the record count), then the chunks the records
     * were laid out in, each from 0 to what was written (as Spark's `ChunkedByteBuffer` wants).
     */
    def result(): Array[ByteBuffer] = {
      val header = ByteBuffer.allocate(HeaderLength).put(Format).putInt(records)
      (header +: chunks.toSeq.map(fitted)).map(c => c.duplicate().flip().asInstanceOf[ByteBuffer]).toArray
    }

    /**
     * A chunk less than half full, copied into one of the size written: Spark's memory store
     * accounts a block by the bytes written, so a block of a few records must not hold a chunk
     * sized for many (thousands of quiet shards would take gigabytes it does not see).
     */
    private def fitted(c: ByteBuffer): ByteBuffer =
      if (c.position().toLong * 2 >= c.capacity()) c
      else ByteBuffer.allocate(c.position()).put(c.duplicate().flip().asInstanceOf[ByteBuffer])
  }

  /**
   * Just under 512 KiB, half of G1's smallest region: an array of half a region or more is
   * "humongous", allocated outside the young generation, and each such allocation may start a
   * concurrent collection cycle; at a steady pace those cycles cost more CPU than the young
   * collections copying flat chunks of bytes (make bench, row `steady`).
   */
  val ChunkLength: Int = (1 << 19) - 1024

  /**
   * A shard's first chunk; each next one doubles, up to [[ChunkLength]]: a prefetch task lays out
   * the records of every shard it reads at once, mostly a few records each on a quiet stream.
   */
  val FirstChunkLength: Int = 8 * 1024
}

/**
 * Walks a block's records in place: after each [[next]], the current record's fields are
 * slices of [[array]] (offsets and lengths), so a row can be written from them with no object
 * per record. The block is its chunks as [[RecordBlock.RecordBlockWriter]] made them, or one
 * buffer holding them one after the other (read back from disk or another executor).
 */
final class RecordBlockCursor(chunks: Array[ByteBuffer]) {
  private val heapChunks: Array[ByteBuffer] = chunks.map { chunk =>
    val heap = if (chunk.hasArray) chunk.duplicate()
    else {
      val copy = ByteBuffer.allocate(chunk.remaining())
      copy.put(chunk.duplicate()).flip()
      copy
    }
    heap.order(ByteOrder.BIG_ENDIAN)
  }
  private var chunkIndex = 0
  private var buffer: ByteBuffer = _
  private var base = 0
  private var at = 0
  private var end = 0
  /** The array of the chunk the current record is in. */
  var array: Array[Byte] = _
  enter(0)

  require(end - at >= 5 && array(base + at) == RecordBlock.Format,
    s"not a prefetched block of this connector version (format ${if (end > at) array(base + at) else "none"})")
  val count: Int = buffer.getInt(at + 1)
  at += 5
  private var read = 0

  var keyOffset, keyLength, sequenceOffset, sequenceLength, dataOffset, dataLength = 0
  /** Where the current record's id is; a length of -1 when it has none. */
  var recordIdOffset, recordIdLength = 0
  var arrivalMillis = 0L
  var subSequenceNumber = 0L
  var endsKinesisRecord = true

  def hasNext: Boolean = read < count

  def next(): Unit = {
    while (at >= end && chunkIndex + 1 < heapChunks.length) enter(chunkIndex + 1)
    keyLength = buffer.getInt(at); keyOffset = base + at + 4; at += 4 + keyLength
    sequenceLength = buffer.getInt(at); sequenceOffset = base + at + 4; at += 4 + sequenceLength
    arrivalMillis = buffer.getLong(at); at += 8
    subSequenceNumber = buffer.getLong(at); at += 8
    val flags = buffer.get(at); at += 1
    endsKinesisRecord = (flags & RecordBlock.EndsKinesisRecord) != 0
    if ((flags & RecordBlock.HasRecordId) == 0) recordIdLength = -1
    else { recordIdLength = buffer.getInt(at); recordIdOffset = base + at + 4; at += 4 + recordIdLength }
    dataLength = buffer.getInt(at); dataOffset = base + at + 4; at += 4 + dataLength
    read += 1
  }

  def partitionKey: String = new String(array, keyOffset, keyLength, UTF_8)
  def sequenceNumber: String = new String(array, sequenceOffset, sequenceLength, UTF_8)
  def data: Array[Byte] = java.util.Arrays.copyOfRange(array, dataOffset, dataOffset + dataLength)
  def recordId: Option[String] =
    if (recordIdLength < 0) None else Some(new String(array, recordIdOffset, recordIdLength, UTF_8))

  private def enter(index: Int): Unit = {
    chunkIndex = index
    buffer = heapChunks(index)
    array = buffer.array()
    base = buffer.arrayOffset()
    at = buffer.position()
    end = buffer.limit()
  }
}
