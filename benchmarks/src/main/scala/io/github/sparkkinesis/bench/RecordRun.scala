package io.github.sparkkinesis.bench

/**
 * A run of consecutive records of one shard, as one GetRecords answer or one SubscribeToShard
 * event carries them: from `from` (inclusive) to `until` (exclusive), within a record count and
 * a byte budget.
 */
final case class RecordRun(shard: BenchShard, from: Long, until: Long, bytes: Long) {
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
    var p = from
    while (p < until) {
      w.startMap(4)
      w.key("SequenceNumber")
      w.sequence(shard.sequencePrefix, p)
      w.key("ApproximateArrivalTimestamp")
      if (shard.isSynthetic(p)) {
        w.timestamp(shard.stream.createdMillis)
        w.key("Data")
        w.blob(shard.syntheticData)
        w.key("PartitionKey")
        w.string(shard.syntheticKey)
      } else {
        val r = shard.stored(p)
        w.timestamp(r.arrivalMillis)
        w.key("Data")
        w.blob(r.data)
        w.key("PartitionKey")
        w.string(r.partitionKey)
      }
      w.endMap()
      p += 1
    }
    w.endArray()
  }

  /** How far behind the tip a reader is once it has this run: 0 when it reached the end. */
  def millisBehindLatest(now: Long): Long =
    if (until >= shard.end) 0L else math.max(0L, now - shard.arrivalMillis(until))
}

object RecordRun {
  /** The records from `from` on: at most `maxRecords` of them and `maxBytes` of data. */
  def take(shard: BenchShard, from: Long, maxRecords: Int, maxBytes: Long): RecordRun = {
    val end = math.min(shard.end, from + maxRecords)
    var p = from
    var bytes = 0L
    while (p < end && bytes + shard.dataSize(p) <= maxBytes) {
      bytes += shard.dataSize(p)
      p += 1
    }
    RecordRun(shard, from, p, bytes)
  }
}
