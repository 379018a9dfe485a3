// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.kpl

import java.nio.charset.StandardCharsets

import scala.collection.mutable

/**
 * Packs user records into one KPL aggregate (the format [[Deaggregator]] reads), knowing the
 * aggregate's exact size before each record is added, so a caller can fill it up to a Kinesis
 * limit and no further. Partition keys and explicit hash keys are tabled once each, as the
 * Kinesis Producer Library does. Encoding is [[AggregatedRecord.toByteArray]] and
 * [[KplEnvelope.wrap]]: one codec for both directions.
 *
 * @param firstRecordTags tags put on the first record (a producer's [[ResendMark]]), before its own
 */
final class AggregateBuilder(firstRecordTags: IndexedSeq[AggregateTag] = IndexedSeq.empty) {
  private val partitionKeys = mutable.LinkedHashMap.empty[String, Long]
  private val hashKeys = mutable.LinkedHashMap.empty[String, Long]
  private val entries = IndexedSeq.newBuilder[AggregatedEntry]
  private var records = 0
  private var bodyBytes = 0L
  private var first: Option[String] = None
  private val firstTagsBytes = AggregateBuilder.tagsBytes(firstRecordTags)

  def isEmpty: Boolean = records == 0

  def count: Int = records

  /** The partition key of the first record: the one the aggregate is put under. */
  def firstPartitionKey: Option[String] = first

  /** The bytes of the aggregate as it is: magic bytes, protobuf body and MD5. */
  def size: Long = KplEnvelope.Overhead + bodyBytes

  /** What [[size]] would be with one more record (carrying `tags`). */
  def sizeWith(partitionKey: String, explicitHashKey: Option[String], dataLength: Int,
      tags: IndexedSeq[AggregateTag] = IndexedSeq.empty): Long =
    size + growth(partitionKey, explicitHashKey, dataLength, tags)

  def add(partitionKey: String, explicitHashKey: Option[String], data: Array[Byte],
      tags: IndexedSeq[AggregateTag] = IndexedSeq.empty): Unit = {
    bodyBytes += growth(partitionKey, explicitHashKey, data.length, tags)
    val keyIndex = partitionKeys.getOrElseUpdate(partitionKey, partitionKeys.size.toLong)
    val hashIndex = explicitHashKey.map(k => hashKeys.getOrElseUpdate(k, hashKeys.size.toLong))
    entries += AggregatedEntry(keyIndex, hashIndex, data, if (records == 0) firstRecordTags ++ tags else tags)
    records += 1
    if (first.isEmpty) first = Some(partitionKey)
  }

  /** The aggregate, framed, ready to be one Kinesis record's data. */
  def result(): Array[Byte] =
    KplEnvelope.wrap(AggregatedRecord(partitionKeys.keys.toIndexedSeq, hashKeys.keys.toIndexedSeq, entries.result()))

  /** The bytes a record adds to the body: its entry, and its keys where the tables lack them. */
  private def growth(partitionKey: String, explicitHashKey: Option[String], dataLength: Int,
      ownTags: IndexedSeq[AggregateTag]): Long = {
    import AggregateBuilder._
    val keyIndex = partitionKeys.getOrElse(partitionKey, partitionKeys.size.toLong)
    val newKey = if (partitionKeys.contains(partitionKey)) 0L else field(utf8Length(partitionKey))
    val (hashIndexBytes, newHashKey) = explicitHashKey match {
      case None => (0L, 0L)
      case Some(k) =>
        val index = hashKeys.getOrElse(k, hashKeys.size.toLong)
        (1L + ProtoWire.varintSize(index), if (hashKeys.contains(k)) 0L else field(utf8Length(k)))
    }
    val tags = (if (records == 0) firstTagsBytes else 0L) + tagsBytes(ownTags)
    val entry = 1L + ProtoWire.varintSize(keyIndex) + hashIndexBytes + field(dataLength.toLong) + tags
    newKey + newHashKey + field(entry)
  }
}

private object AggregateBuilder {
  /** A length-delimited field of `length` bytes, tag included (field numbers below 16 take one byte). */
  def field(length: Long): Long = 1L + ProtoWire.varintSize(length) + length

  def utf8Length(s: String): Long = s.getBytes(StandardCharsets.UTF_8).length.toLong

  /** The bytes of tag fields (field 4 of a record). */
  def tagsBytes(tags: IndexedSeq[AggregateTag]): Long =
    if (tags.isEmpty) 0L else tags.map(t => field(AggregatedRecord.tagBytes(t).length.toLong)).sum
}
