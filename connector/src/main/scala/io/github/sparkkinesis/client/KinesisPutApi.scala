// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client

/**
 * One record as PutRecords takes it. `size` is what counts towards the Kinesis limits: the
 * data plus the partition key's UTF-8 bytes (the explicit hash key does not count).
 */
final case class PutEntry(partitionKey: String, data: Array[Byte], explicitHashKey: Option[String], size: Int) {
  override def toString: String = s"PutEntry($size bytes)" // Never the payload, which may be private.
}

/** What Kinesis did with one entry of a PutRecords call: stored it (on which shard), or refused it. */
sealed trait PutResult

/** Stored on `shardId`, the shard the entry's hash key belonged to when Kinesis took it. */
final case class PutStored(shardId: String) extends PutResult

/** Why Kinesis refused one entry of a PutRecords call. */
final case class PutFailure(code: String, message: String) extends PutResult

/**
 * The Kinesis calls the sink makes. The sink only writes through this trait, so unit tests can
 * put a fake behind it that refuses entries, throttles, or reshards.
 */
trait KinesisPutApi {
  /**
   * Sends one PutRecords call with at most 500 entries and 5 MiB, or one larger entry. Returns,
   * for each entry in order, where Kinesis stored it or why it was refused. A call refused as a
   * whole for throttling is reported as every entry refused with the throttling code, so
   * callers retry both kinds alike; any other failure of the call is thrown.
   */
  def putRecords(stream: String, entries: IndexedSeq[PutEntry]): IndexedSeq[PutResult]

  /** The stream's shards, closed ones included; the sink aggregates per open shard. */
  def listShards(stream: String, pageSize: Int): Seq[ShardDescription]

  /**
   * The largest record the stream takes, in bytes (data plus partition key): its
   * `MaxRecordSizeInKiB` (1 to 10 MiB), or 1 MiB when Kinesis names none.
   */
  def maxRecordBytes(stream: String): Long
}

object KinesisPutApi {
  /** What a stream takes unless it was configured for larger records. */
  val DefaultMaxRecordBytes: Long = 1024L * 1024
}
