// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.kpl

import java.nio.charset.StandardCharsets

/** One user record inside an aggregate; the keys are indices into the aggregate's tables. */
final case class AggregatedEntry(
    partitionKeyIndex: Long,
    explicitHashKeyIndex: Option[Long],
    data: Array[Byte],
    tags: IndexedSeq[AggregateTag] = IndexedSeq.empty)

/** A key and optional value a producer attached to a user record (field 4 of a record). */
final case class AggregateTag(key: String, value: Option[String])

/**
 * The protobuf message the Kinesis Producer Library puts between its magic bytes and MD5:
 * tables of partition keys and explicit hash keys (field 1 and 2), and the records (field 3),
 * each with key indices (1, 2), data (3) and tags (4; only [[ResendMark]] and [[RecordId]] are read from them).
 */
final case class AggregatedRecord(
    partitionKeys: IndexedSeq[String],
    explicitHashKeys: IndexedSeq[String],
    records: IndexedSeq[AggregatedEntry]) {

  def toByteArray: Array[Byte] = {
    val w = new ProtoWriter
    partitionKeys.foreach(k => w.bytesField(1, k.getBytes(StandardCharsets.UTF_8)))
    explicitHashKeys.foreach(k => w.bytesField(2, k.getBytes(StandardCharsets.UTF_8)))
    records.foreach(r => w.bytesField(3, AggregatedRecord.entryBytes(r)))
    w.toByteArray
  }
}

object AggregatedRecord {

  /** Parses the protobuf body; throws [[MalformedAggregateException]] when it is not one. */
  def parse(bytes: Array[Byte], from: Int, until: Int): AggregatedRecord = {
    val partitionKeys = IndexedSeq.newBuilder[String]
    val hashKeys = IndexedSeq.newBuilder[String]
    val records = IndexedSeq.newBuilder[AggregatedEntry]
    val in = new ProtoReader(bytes, from, until)
    while (in.hasMore) {
      in.tag() match {
        case (1, ProtoWire.LengthDelimited) => partitionKeys += in.string()
        case (2, ProtoWire.LengthDelimited) => hashKeys += in.string()
        case (3, ProtoWire.LengthDelimited) => records += entry(in.message())
        case (_, wireType) => in.skip(wireType)
      }
    }
    AggregatedRecord(partitionKeys.result(), hashKeys.result(), records.result())
  }

  private def entry(in: ProtoReader): AggregatedEntry = {
    var partitionKeyIndex: Option[Long] = None
    var hashKeyIndex: Option[Long] = None
    var data: Option[Array[Byte]] = None
    val tags = IndexedSeq.newBuilder[AggregateTag]
    while (in.hasMore) {
      in.tag() match {
        case (1, ProtoWire.Varint) => partitionKeyIndex = Some(in.varint())
        case (2, ProtoWire.Varint) => hashKeyIndex = Some(in.varint())
        case (3, ProtoWire.LengthDelimited) => data = Some(in.byteArray())
        case (4, ProtoWire.LengthDelimited) => tagOf(in.message()).foreach(tags += _)
        case (_, wireType) => in.skip(wireType)
      }
    }
    // Both are required fields of the format.
    AggregatedEntry(
      partitionKeyIndex.getOrElse(throw new MalformedAggregateException("a record has no partition key index")),
      hashKeyIndex,
      data.getOrElse(throw new MalformedAggregateException("a record has no data")),
      tags.result())
  }

  /** A tag; one without its (required) key is passed over, as tags do not change what a record is. */
  private def tagOf(in: ProtoReader): Option[AggregateTag] = {
    var key: Option[String] = None
    var value: Option[String] = None
    while (in.hasMore) {
      in.tag() match {
        case (1, ProtoWire.LengthDelimited) => key = Some(in.string())
        case (2, ProtoWire.LengthDelimited) => value = Some(in.string())
        case (_, wireType) => in.skip(wireType)
      }
    }
    key.map(AggregateTag(_, value))
  }

  private[kpl] def entryBytes(r: AggregatedEntry): Array[Byte] = {
    val w = new ProtoWriter().varintField(1, r.partitionKeyIndex)
    r.explicitHashKeyIndex.foreach(w.varintField(2, _))
    w.bytesField(3, r.data)
    r.tags.foreach(t => w.bytesField(4, tagBytes(t)))
    w.toByteArray
  }

  private[kpl] def tagBytes(t: AggregateTag): Array[Byte] = {
    val w = new ProtoWriter().bytesField(1, t.key.getBytes(StandardCharsets.UTF_8))
    t.value.foreach(v => w.bytesField(2, v.getBytes(StandardCharsets.UTF_8)))
    w.toByteArray
  }
}
