// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}
import org.apache.spark.util.LongAccumulator

import io.github.sparkkinesis.client.ConnectionConfig
import io.github.sparkkinesis.client.sdk.KinesisClients
import io.github.sparkkinesis.kpl.RangeCheck
import io.github.sparkkinesis.options.FetchSettings
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}

/** A prefetched block a batch reads: the records after `from` up to `to`. */
final case class BlockRef(name: String, from: ShardPosition, to: ShardPosition, bytes: Long, location: String)

/**
 * The records of one shard after `start`, up to and including `end`, and the blocks holding
 * them; `rangeCheck` is the shard's, which user records of KPL aggregates are checked against.
 */
final case class ShardRange(
    shard: ShardKey,
    start: ShardPosition,
    end: ShardPosition.AfterSequence,
    blocks: Seq[BlockRef],
    rangeCheck: Option[RangeCheck] = None) {
  // Summed once (and unboxed): planning sorts and packs thousands of ranges by it.
  val bytes: Long = {
    var sum = 0L
    blocks.foreach(block => sum += block.bytes)
    sum
  }
}

object ShardRange {
  /** The range a batch reads from `start` to `until`; None when it holds no record. */
  def between(shard: ShardKey, start: ShardPosition, until: ShardPosition, rangeCheck: Option[RangeCheck],
      blocks: => Seq[BlockRef] = Nil): Option[ShardRange] = {
    val end = until match {
      case a: ShardPosition.AfterSequence => Some(a)
      case ShardPosition.ShardEnd(Some(seq)) => Some(ShardPosition.AfterSequence(seq))
      case _ => None
    }
    end.filterNot(ShardPosition.covers(start, _)).map(e => ShardRange(shard, start, e, blocks, rangeCheck))
  }
}

/** One task of a batch: one shard range, or several small ones coalesced. */
final case class KinesisInputPartition(ranges: Seq[ShardRange]) extends InputPartition {
  // Run where most of the data already is.
  override def preferredLocations(): Array[String] =
    ranges.flatMap(_.blocks).groupBy(_.location).map { case (host, blocks) => host -> blocks.map(_.bytes).sum }
      .toSeq.sortBy(-_._2).headOption.map(_._1).toArray
}

/**
 * Reads a batch's partitions. `dataLoss`, when given, counts the ranges whose records retention
 * deleted before the batch read them (`failOnDataLoss` false): the driver adds it to the
 * query's `dataLossEvents`.
 */
final class KinesisPartitionReaderFactory(connection: ConnectionConfig, fetch: FetchSettings,
    dataLoss: Option[LongAccumulator] = None) extends PartitionReaderFactory {

  override def createReader(partition: InputPartition): PartitionReader[InternalRow] = {
    val ranges = partition.asInstanceOf[KinesisInputPartition].ranges
    lazy val api = KinesisClients.api(connection)
    val countLoss = () => dataLoss.foreach(_.add(1L))
    new KinesisPartitionReader(
      ranges.iterator.flatMap(r => ShardRangeRecords(r, api, fetch, onDataLoss = countLoss)),
      KinesisClients.lease(connection))
  }
}

/** The rows of a task's shard ranges, one after the other; holds the connection's clients until closed. */
final class KinesisPartitionReader(rows: Iterator[InternalRow], clients: AutoCloseable = () => ())
  extends PartitionReader[InternalRow] {

  private var current: InternalRow = _

  override def next(): Boolean = {
    val more = rows.hasNext
    if (more) current = rows.next()
    more
  }

  override def get(): InternalRow = current

  override def close(): Unit = clients.close()
}
