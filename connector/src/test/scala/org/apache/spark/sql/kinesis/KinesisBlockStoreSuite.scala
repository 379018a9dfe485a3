// SPDX-License-Identifier: Apache-2.0
package org.apache.spark.sql.kinesis

import org.apache.spark.SparkEnv
import org.apache.spark.storage.{BlockId, StorageLevel}
import org.apache.spark.util.io.ChunkedByteBuffer
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.LocalSpark
import io.github.sparkkinesis.client.KinesisRecord
import io.github.sparkkinesis.prefetch.RecordBlock

/**
 * Prefetched blocks through Spark's real block manager, in memory and on disk (a lost block:
 * KinesisMicroBatchStreamSuite).
 */
class KinesisBlockStoreSuite extends AnyFunSuite with Matchers with LocalSpark {
  override protected def sparkMaster: String = "local[1]"

  // About 3 MB: several chunks.
  private val records = (0 until 3000).map(i => KinesisRecord(s"k$i", Array.fill(1000)(i.toByte), i.toString, i.toLong))
  private def fields(r: KinesisRecord) = (r.partitionKey, r.data.toSeq, r.sequenceNumber, r.approximateArrivalMillis)

  test("a block kept in memory is read back as its own chunks, not copied") {
    val chunks = RecordBlock.encode(records.toArray)
    val name = KinesisBlockStore.blockName(1, 1L)
    KinesisBlockStore.put(name, chunks) shouldBe Some(KinesisBlockStore.thisExecutorLocation)
    val back = KinesisBlockStore.get(name).get
    back.length shouldBe chunks.length
    back.zip(chunks).foreach { case (b, c) => (b.array() eq c.array()) shouldBe true }
    RecordBlock.decode(back).map(fields).toSeq shouldBe records.map(fields)
  }

  test("a block on disk is read back as one buffer with the same records") {
    val name = KinesisBlockStore.blockName(1, 2L)
    // What the block manager writes when it drops a block from memory: the chunks one after the other.
    SparkEnv.get.blockManager.putBytes[Array[Byte]](BlockId(name),
      new ChunkedByteBuffer(RecordBlock.encode(records.toArray)), StorageLevel.DISK_ONLY) shouldBe true
    val back = KinesisBlockStore.get(name).get
    back.length shouldBe 1
    RecordBlock.decode(back).map(fields).toSeq shouldBe records.map(fields)
  }
}
