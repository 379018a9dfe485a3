// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import java.nio.ByteBuffer

import org.scalacheck.{Gen, Prop}
import org.scalatest.funsuite.AnyFunSuite

import io.github.sparkkinesis.PropertyChecks
import io.github.sparkkinesis.client.{KinesisRecord, KplCounts}
import io.github.sparkkinesis.client.wire.WireGen
import io.github.sparkkinesis.efo.SubscriptionCounts
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}

/**
 * Generated prefetched blocks and prefetch reports come back exactly as they were written: a
 * block as the chunks its writer made, as one buffer (read back from disk or another executor)
 * and from direct buffers; a report through its codec. A block holds little more memory than
 * the bytes it is accounted by.
 */
class BlockCodecPropertySuite extends AnyFunSuite with PropertyChecks {

  private val sequenceNumber = Gen.choose(1, 60).flatMap(n => Gen.listOfN(n, Gen.numChar)).map(_.mkString)

  private val record: Gen[KinesisRecord] = for {
    key <- WireGen.partitionKey
    data <- Gen.frequency(20 -> WireGen.sized(0, 2000),
      1 -> WireGen.sized(RecordBlock.ChunkLength - 40,
        RecordBlock.ChunkLength + 40))
    sequence <- sequenceNumber
    arrival <- Gen.oneOf(Gen.long, Gen.oneOf(0L, Long.MinValue, Long.MaxValue))
    sub <- Gen.oneOf(Gen.long, Gen.const(0L))
    ends <- Gen.oneOf(true, false)
    id <- Gen.frequency(3 -> Gen.const(None), 1 -> WireGen.partitionKey.map(Some(_)))
  } yield KinesisRecord(key, data, sequence, arrival, sub, ends, id)

  private def shape(r: KinesisRecord) =
    (r.partitionKey, ByteBuffer.wrap(r.data), r.sequenceNumber, r.approximateArrivalMillis, r.subSequenceNumber,
      r.endsKinesisRecord, r.recordId)

  private def joined(chunks: Array[ByteBuffer]): Array[ByteBuffer] = {
    val one = ByteBuffer.allocate(chunks.map(_.remaining).sum)
    chunks.foreach(c => one.put(c.duplicate()))
    one.flip()
    Array(one)
  }

  private def direct(chunks: Array[ByteBuffer]): Array[ByteBuffer] = chunks.map { c =>
    val d = ByteBuffer.allocateDirect(c.remaining)
    d.put(c.duplicate()).flip()
    d
  }

  property("a block of any records reads back the same, in chunks, joined and from direct buffers", 100, 41L) {
    Prop.forAllNoShrink(Gen.frequency(1 -> Gen.const(0), 8 -> Gen.choose(1, 40)).flatMap(Gen.listOfN(_, record))) {
      records =>
        val writer = new RecordBlock.RecordBlockWriter
        records.foreach(writer.add)
        val chunks = writer.result()
        val expected = records.map(shape)
        Seq(chunks, joined(chunks), direct(chunks)).foreach { block =>
          val read = RecordBlock.decode(block).toSeq.map(shape)
          if (read != expected) fail(s"a block of ${records.size} records read back differently")
        }
        // Spark's memory store accounts a block by the bytes in its chunks: the arrays behind
        // them hold at most twice that.
        val held = chunks.map(_.array().length.toLong).sum
        if (held > 2 * chunks.map(_.remaining.toLong).sum)
          fail(s"a block of ${records.size} records holds $held bytes of arrays for ${chunks.map(_.remaining).sum}")
        writer.count == records.size && writer.bytes == KinesisRecord.bytesOf(records) &&
        writer.last.map(shape) == records.lastOption.map(shape) &&
        (records.isEmpty || writer.firstArrivalMillis == records.head.approximateArrivalMillis)
    }
  }

  private val text = WireGen.unicode(30)
  private val shard = Gen.zip(text, text).map { case (s, id) => ShardKey(s, id) }
  private val position: Gen[ShardPosition] = Gen.oneOf(
    Gen.const(ShardPosition.TrimHorizon),
    Gen.long.map(ShardPosition.AtTimestamp),
    sequenceNumber.map(ShardPosition.AtSequence),
    Gen.zip(sequenceNumber, Gen.option(Gen.long)).map { case (s, sub) => ShardPosition.AfterSequence(s, sub) },
    Gen.option(sequenceNumber).map(ShardPosition.ShardEnd))

  private val block = for {
    s <- shard; from <- position; to <- position; name <- Gen.option(text); location <- Gen.option(text)
    records <- Gen.choose(0, Int.MaxValue); bytes <- Gen.long; first <- Gen.long; last <- Gen.long
  } yield PrefetchedBlock(s, from, to, name, location, records, bytes, first, last)

  private val status = for {
    s <- shard; p <- position; behind <- Gen.long; caughtUp <- Gen.option(Gen.long)
    throttled <- Gen.choose(0, Int.MaxValue); location <- text
  } yield ShardFetchStatus(s, p, behind, caughtUp, throttled, location)

  private val report = for {
    blocks <- Gen.choose(0, 5).flatMap(Gen.listOfN(_, block))
    statuses <- Gen.choose(0, 5).flatMap(Gen.listOfN(_, status))
    location <- text
    subscriptions <- Gen.option(Gen.zip(Gen.long, Gen.long, Gen.long).map { case (a, b, c) =>
      SubscriptionCounts(a, b, c)
    })
    kpl <- Gen.zip(Gen.long, Gen.long, Gen.option(text)).map { case (a, b, c) => KplCounts(a, b, c) }
    dataLoss <- Gen.choose(0, Int.MaxValue)
  } yield PrefetchResult(blocks.toVector, statuses.toVector, location, subscriptions, kpl, dataLoss)

  property("a prefetch report of anything comes back equal", 500, 42L) {
    Prop.forAllNoShrink(report)(r => PrefetchResultCodec.decode(PrefetchResultCodec.encode(r)) == r)
  }
}
