// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench

/**
 * A run of consecutive records of one shard, as one GetRecords answer or one SubscribeToShard
 * event carries them: from `from` (inclusive) to `until` (exclusive), within a record count and
 * a byte budget; `tip` is the shard's end when the run was read.
 */
final case class RecordRun(shard: BenchShard, from: Long, until: Long, bytes: Long, tip: Long) {
  def count: Int = (until - from).toInt

  /** Bytes of the encoded records, roughly (buffer sizing only). */
  def encodedSizeHint(cbor: Boolean): Int = {
    val data = if (cbor) bytes else bytes * 4 / 3 + 4
    math.min(Int.MaxValue - 1024, data + count.toLong * 120 + 256).toInt
  }

  /** Writes `"Records": [...]` into `w`, whose map is open. */
  def writeRecords(w: DocWriter): Unit = {
    w.key("Records")
    w.startArray(count)
    val (before, after) = if (w.isInstanceOf[Cbor]) shard.cborTemplate else shard.jsonTemplate
    var p = from
    while (p < until) {
      if (shard.isSynthetic(p)) w.template(before, shard.sequencePrefix, p, after)
      else {
        val r = shard.stored(p)
        RecordRun.writeRecord(w, shard.sequencePrefix, p, r.arrivalMillis, r.data, r.partitionKey)
      }
      p += 1
    }
    w.endArray()
  }

  /**
   * How far behind the tip a reader is once it has this run: 0 when it reached the end as the
   * run was read, as Kinesis answers for the records it returns. Records put while the answer
   * was being written do not count: measured then, a caught-up reader of a busy shard looked
   * behind in most answers, and a reader waiting for the tip waited on.
   */
  def millisBehindLatest(now: Long): Long =
    if (until >= tip) 0L else math.max(0L, now - shard.arrivalMillis(until))
}

object RecordRun {
  def writeRecord(w: DocWriter, prefix: Array[Byte], position: Long, arrivalMillis: Long, data: Array[Byte], key: String): Unit = {
    w.startMap(4)
    w.key("SequenceNumber")
    w.sequence(prefix, position)
    w.key("ApproximateArrivalTimestamp")
    w.timestamp(arrivalMillis)
    w.key("Data")
    w.blob(data)
    w.key("PartitionKey")
    w.string(key)
    w.endMap()
  }

  /**
   * A synthetic record of `shard` encoded once, as the bytes before and after its sequence
   * number's digits: all its records differ only there. What lets one core serve 500,000
   * records a second.
   */
  def template(shard: BenchShard, cbor: Boolean): (Array[Byte], Array[Byte]) = {
    val out = io.netty.buffer.Unpooled.buffer()
    val w = if (cbor) new Cbor(out) else new Json(out)
    writeRecord(w, shard.sequencePrefix, 0L, shard.stream.createdMillis, shard.syntheticData, shard.syntheticKey)
    val bytes = io.netty.buffer.ByteBufUtil.getBytes(out)
    val digits = Sequence.text(shard.sequencePrefix, 0L).getBytes(java.nio.charset.StandardCharsets.US_ASCII)
    val at = bytes.indexOfSlice(digits)
    (bytes.take(at), bytes.drop(at + digits.length))
  }
  /**
   * The records from `from` on: at most `maxRecords` of them and `maxBytes` of data, but always
   * the first one, however large (a 10 MiB record comes alone, as Kinesis sends it).
   */
  def take(shard: BenchShard, from: Long, maxRecords: Int, maxBytes: Long): RecordRun = {
    val tip = shard.end
    val end = math.min(tip, from + maxRecords)
    var p = from
    var bytes = 0L
    while (p < end && (p == from || bytes + shard.dataSize(p) <= maxBytes)) {
      bytes += shard.dataSize(p)
      p += 1
    }
    RecordRun(shard, from, p, bytes, tip)
  }
}
