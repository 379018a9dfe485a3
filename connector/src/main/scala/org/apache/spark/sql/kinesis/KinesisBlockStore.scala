// SPDX-License-Identifier: Apache-2.0
package org.apache.spark.sql.kinesis

import java.lang.reflect.Method
import java.nio.ByteBuffer

import scala.reflect.ClassTag

import org.apache.spark.SparkEnv
import org.apache.spark.storage.{
  BlockId, BlockManager, BlockManagerId, ByteBufferBlockData, StorageLevel, StreamBlockId
}
import org.apache.spark.util.io.ChunkedByteBuffer

/**
 * The one bridge into Spark internals: prefetched records are kept as blocks in Spark's block
 * manager, which stores them in executor memory (spilling to disk under pressure), tells the
 * driver where they live, and serves them to tasks on other executors. The block manager is
 * `private[spark]`, hence this object's package.
 */
object KinesisBlockStore {

  /** A block name of this connector: `input-<streamKey>-<unique>`. */
  def blockName(streamKey: Int, unique: Long): String = StreamBlockId(streamKey, unique).name

  /**
   * Stores a block's chunks on this executor as they are (no serializer: the connector lays its
   * blocks out itself; see `RecordBlock`); returns where they live, as a Spark task location.
   */
  def put(name: String, chunks: Array[ByteBuffer]): Option[String] = {
    val blockManager = SparkEnv.get.blockManager
    val leading = Seq[AnyRef](BlockId(name), new ChunkedByteBuffer(chunks), StorageLevel.MEMORY_AND_DISK_SER,
      java.lang.Boolean.TRUE)
    // The parameters after tellMaster, but the last (the ClassTag), take their declared defaults.
    val defaults = (leading.size + 1 until putBytes.getParameterCount)
      .map(i => classOf[BlockManager].getMethod(s"putBytes$$default$$$i").invoke(blockManager))
    val args = leading ++ defaults :+ ClassTag(classOf[Array[Byte]])
    val stored = putBytes.invoke(blockManager, args: _*).asInstanceOf[Boolean]
    if (stored) Some(thisExecutorLocation) else None
  }

  /**
   * `BlockManager.putBytes`, found at run time: Spark 4.3 added two parameters with defaults,
   * which a compiled call does not see, so that the Spark 4.2 jar also runs on Spark 4.3.
   */
  private lazy val putBytes: Method = classOf[BlockManager].getMethods
    .find(m => m.getName == "putBytes" && m.getParameterTypes.headOption.contains(classOf[BlockId]))
    .getOrElse(throw new IllegalStateException("this Spark's BlockManager has no putBytes(BlockId, ...)"))

  /**
   * The block's chunks, from this executor or another one; None when it is gone (an executor
   * died). A block in this executor's memory is not copied: its heap buffers stay valid after
   * the read lock is released, even if the block is then dropped to disk or removed. From disk
   * or another executor it comes as one buffer.
   */
  def get(name: String): Option[Array[ByteBuffer]] = {
    val blockManager = SparkEnv.get.blockManager
    val id = BlockId(name)
    blockManager.getLocalBytes(id) match {
      case Some(data) =>
        try Some(data match {
            case inMemory: ByteBufferBlockData => inMemory.buffer.getChunks()
            case onDisk => Array(onDisk.toByteBuffer())
          })
        finally blockManager.releaseLockAndDispose(id, data)
      case None => blockManager.getRemoteBytes(id).map(bytes => Array(bytes.toByteBuffer))
    }
  }

  /** Removes blocks wherever they are (driver side). */
  def remove(names: Iterable[String]): Unit = {
    val master = SparkEnv.get.blockManager.master
    names.foreach(name => master.removeBlock(BlockId(name)))
  }

  /** Removes every block of one stream instance, including those of failed task attempts. */
  def removeAll(streamKey: Int): Unit = {
    val master = SparkEnv.get.blockManager.master
    master.getMatchingBlockIds({
        case StreamBlockId(key, _) => key == streamKey
        case _ => false
      }, askStorageEndpoints = false).foreach(id => master.removeBlock(id))
  }

  /** This executor, in the form Spark's scheduler reads as "run on this executor". */
  def thisExecutorLocation: String = location(SparkEnv.get.blockManager.blockManagerId)

  /** Every executor alive now (and the driver), as locations; asks the block manager master (driver side). */
  def liveExecutorLocations: Set[String] =
    SparkEnv.get.blockManager.master.getMemoryStatus.keySet.map(location)

  private def location(id: BlockManagerId): String = s"executor_${id.host}_${id.executorId}"
}
