package org.apache.spark.sql.kinesis

import java.nio.ByteBuffer

import org.apache.spark.SparkEnv
import org.apache.spark.storage.{BlockId, BlockManagerId, ByteBufferBlockData, StorageLevel, StreamBlockId}
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
    val stored = blockManager.putBytes[Array[Byte]](BlockId(name), new ChunkedByteBuffer(chunks),
      StorageLevel.MEMORY_AND_DISK_SER, tellMaster = true)
    if (stored) Some(thisExecutorLocation) else None
  }

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
