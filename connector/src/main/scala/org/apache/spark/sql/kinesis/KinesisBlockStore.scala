package org.apache.spark.sql.kinesis

import scala.reflect.ClassTag

import org.apache.spark.SparkEnv
import org.apache.spark.storage.{BlockId, BlockManagerId, StorageLevel, StreamBlockId}

/**
 * The one bridge into Spark internals: prefetched records are kept as blocks in Spark's block
 * manager, which stores them in executor memory (spilling to disk under pressure), tells the
 * driver where they live, and serves them to tasks on other executors. The block manager is
 * `private[spark]`, hence this object's package.
 */
object KinesisBlockStore {

  /** A block name of this connector: `input-<streamKey>-<unique>`. */
  def blockName(streamKey: Int, unique: Long): String = StreamBlockId(streamKey, unique).name

  /** Stores `value` on this executor; returns where it lives, as a Spark task location. */
  def put[T: ClassTag](name: String, value: T): Option[String] = {
    val blockManager = SparkEnv.get.blockManager
    val stored = blockManager.putSingle(BlockId(name), value, StorageLevel.MEMORY_AND_DISK_SER, tellMaster = true)
    if (stored) Some(thisExecutorLocation) else None
  }

  /** The block from this executor or another one; None when it is gone (an executor died). */
  def get[T: ClassTag](name: String): Option[T] =
    SparkEnv.get.blockManager.get[T](BlockId(name)).map { result =>
      val values = result.data.toList // consuming the iterator releases the block's read lock
      values.head.asInstanceOf[T]
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
