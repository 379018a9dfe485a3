// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import java.nio.ByteBuffer

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.{FakeKinesisApi, KinesisSchema}
import io.github.sparkkinesis.client.KinesisRecord
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.options.FetchSettings
import io.github.sparkkinesis.prefetch.RecordBlock

/** Prefetched blocks (the connector's own byte layout) read back as rows, and lost blocks read again from Kinesis. */
class ShardRangeRecordsSuite extends AnyFunSuite with Matchers {
  private val shard = ShardKey("orders", "shardId-000000000000")
  private val fetch = FetchSettings(100, 2.0, 0L, 1000L)

  /** What a user sees of a row: (partitionKey, data, stream, shardId, sequenceNumber, arrival micros). */
  private def fields(row: InternalRow) = (row.getUTF8String(0).toString, new String(row.getBinary(1), "UTF-8"),
    row.getUTF8String(2).toString, row.getUTF8String(3).toString, row.getUTF8String(4).toString, row.getLong(5))

  private def expected(r: KinesisRecord) =
    (r.partitionKey, new String(r.data, "UTF-8"), shard.stream, shard.shardId, r.sequenceNumber,
      r.approximateArrivalMillis * 1000L)

  private def setup(): (FakeKinesisApi, Seq[KinesisRecord]) = {
    val api = new FakeKinesisApi().createStream("orders", 1)
    api.putMany("orders", shard.shardId, "r", 6)
    (api, api.records("orders", shard.shardId))
  }

  private def blocks(records: Seq[KinesisRecord]): (Seq[BlockRef], Map[String, Array[ByteBuffer]]) = {
    val (first, second) = records.splitAt(3)
    val refs = Seq(
      BlockRef("b1", ShardPosition.TrimHorizon, ShardPosition.AfterSequence(first.last.sequenceNumber), 0, "here"),
      BlockRef("b2", ShardPosition.AfterSequence(first.last.sequenceNumber),
        ShardPosition.AfterSequence(second.last.sequenceNumber), 0, "here"))
    (refs,
      Map("b1" -> RecordBlock.encode(first.toArray), "b2" -> RecordBlock.encode(second.toArray)))
  }

  test("the rows of the blocks are the records put, field by field, in order") {
    val (api, records) = setup()
    val (refs, stored) = blocks(records)
    val range =
      ShardRange(shard, ShardPosition.TrimHorizon, ShardPosition.AfterSequence(records.last.sequenceNumber), refs)
    ShardRangeRecords(range, api, fetch, stored.get).map(fields(_)).toList shouldBe records.map(expected(_))
    api.callCount("GetRecords") shouldBe 0
  }

  test("a lost block is read again from Kinesis, with the same rows") {
    val (api, records) = setup()
    val (refs, stored) = blocks(records)
    val range =
      ShardRange(shard, ShardPosition.TrimHorizon, ShardPosition.AfterSequence(records.last.sequenceNumber), refs)
    ShardRangeRecords(range, api, fetch, (stored - "b2").get).map(fields(_)).toList shouldBe records.map(expected(_))
    ShardRangeRecords(range, api, fetch, _ => None).map(fields(_)).toList shouldBe records.map(expected(_))
  }

  test("a block and its rows keep non-ASCII keys, empty data and every byte value") {
    val odd = Array(
      KinesisRecord("ключ-🔑", Array.emptyByteArray, "49590338271490256608559692538361571095921575989136588802", 1L),
      KinesisRecord("", Array.tabulate(256)(_.toByte), "1", 0L))
    val back = RecordBlock.decode(RecordBlock.encode(odd))
    back.map(r => (r.partitionKey, r.data.toSeq, r.sequenceNumber, r.approximateArrivalMillis)) shouldBe
      odd.map(r => (r.partitionKey, r.data.toSeq, r.sequenceNumber, r.approximateArrivalMillis))
    RecordBlock.decode(RecordBlock.encode(Array.empty)) shouldBe empty
    val end = ShardPosition.AfterSequence(odd.last.sequenceNumber)
    val range =
      ShardRange(shard, ShardPosition.TrimHorizon, end, Seq(BlockRef("b", ShardPosition.TrimHorizon, end, 0, "here")))
    val rows = ShardRangeRecords(range, new FakeKinesisApi(), fetch,
      Map("b" -> RecordBlock.encode(odd)).get).map(fields(_)).toList
    rows shouldBe odd.map(expected(_)).toList
  }

  test("a block's rows project to the same UnsafeRows as records written directly, and copies keep their values") {
    val (api, records) = setup()
    val (refs, stored) = blocks(records)
    val range =
      ShardRange(shard, ShardPosition.TrimHorizon, ShardPosition.AfterSequence(records.last.sequenceNumber), refs)
    val project = UnsafeProjection.create(KinesisSchema.schema)
    val written = new KinesisRowWriter(shard)
    val rows = ShardRangeRecords(range, api, fetch, stored.get)
    val copies = rows.zip(records.iterator).map { case (row, record) =>
      project(row) shouldBe written.write(record)
      row.copy()
    }.toList
    copies.map(fields(_)) shouldBe records.map(expected(_))
  }

  test("with includeRecordIds, rows of blocks and rows read again end with the record's id, null without one") {
    val records = Seq(KinesisRecord("k", Array[Byte](1), "1", 5L, recordId = Some("q/0/0/0")),
      KinesisRecord("k", Array[Byte](2), "2", 5L))
    val end = ShardPosition.AfterSequence("2")
    val range =
      ShardRange(shard, ShardPosition.TrimHorizon, end, Seq(BlockRef("b", ShardPosition.TrimHorizon, end, 0, "here")))
    val withIds = fetch.copy(recordIds = true)
    val schema = KinesisSchema(shard.stream, recordIds = true)
    schema.fieldNames.last shouldBe "recordId"
    val project = UnsafeProjection.create(schema)
    val written = new KinesisRowWriter(shard, recordIds = true)
    val rows =
      ShardRangeRecords(range, new FakeKinesisApi(), withIds, Map("b" -> RecordBlock.encode(records.toArray)).get)
        .zip(records.iterator).map { case (row, record) =>
          val unsafe = project(row)
          unsafe shouldBe written.write(record)
          row.copy()
        }.toList
    rows.map(r => if (r.isNullAt(7)) None else Some(r.getUTF8String(7).toString)) shouldBe Seq(Some("q/0/0/0"), None)
    // Without the option the rows keep their seven columns, ids or not.
    ShardRangeRecords(range, new FakeKinesisApi(), fetch, Map("b" -> RecordBlock.encode(records.toArray)).get)
      .map(_.numFields).toList shouldBe Seq(7, 7)
  }

  test("a block larger than a chunk reads back the same from its chunks and from one buffer (disk, another executor)") {
    // 3,000 records of 1,000 bytes, and one longer than a chunk: several chunks.
    val records = (0 until 3000).map(i => KinesisRecord(s"k$i", Array.fill(1000)(i.toByte), i.toString, i.toLong)) :+
      KinesisRecord("big", Array.tabulate(RecordBlock.ChunkLength + 10)(_.toByte), "3000", 3000L)
    val chunks = RecordBlock.encode(records.toArray)
    chunks.length should be > 4
    all(chunks.map(_.remaining())) should be <= RecordBlock.ChunkLength + 100
    // Spark writes the chunks one after the other to disk and the network.
    val joined = ByteBuffer.allocate(chunks.map(_.remaining()).sum)
    chunks.foreach(c => joined.put(c.duplicate()))
    joined.flip()
    val direct = ByteBuffer.allocateDirect(joined.remaining()).put(joined.duplicate())
    direct.flip()
    def fieldsOf(r: KinesisRecord) = (r.partitionKey, r.data.toSeq, r.sequenceNumber, r.approximateArrivalMillis)
    for (block <- Seq(chunks, Array(joined), Array[ByteBuffer](direct))) {
      RecordBlock.decode(block).map(fieldsOf).toSeq shouldBe records.map(fieldsOf)
    }
  }

  test("bytes that are not a block of this version are refused, saying so") {
    val e = intercept[IllegalArgumentException](RecordBlock.decode(Array(ByteBuffer.wrap(Array[Byte](-84, -19, 0, 5)))))
    e.getMessage should include("not a prefetched block of this connector version")
  }
}
