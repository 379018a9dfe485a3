// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.kpl

/**
 * A record as its producer wrote it; `subSequenceNumber` is its index in the aggregate (0 when
 * not aggregated), `recordId` the [[RecordId]] its producer tagged it with.
 */
final case class UserRecord(
    partitionKey: String,
    explicitHashKey: Option[String],
    data: Array[Byte],
    subSequenceNumber: Long,
    recordId: Option[String] = None)

/**
 * What one Kinesis record holds. `corrupt` names why a record with the magic bytes was passed
 * on whole; `outOfRange` counts user records whose hash key is outside the shard's range, and
 * `dropped` those of them the [[RangeCheck]] dropped.
 */
final case class Deaggregated(records: IndexedSeq[UserRecord], corrupt: Option[String], outOfRange: Int,
    dropped: Int = 0)

/**
 * Splits KPL aggregates into their user records: an aggregate whose digest or body is bad is
 * passed on as one ordinary record, as the Kinesis Client Library does. User records whose hash
 * key falls outside the shard's range are kept or dropped as the shard's [[RangeCheck]] says;
 * the decision depends only on the aggregate and the shard, so every read of a shard makes it
 * alike and stays repeatable.
 */
object Deaggregator {

  def apply(partitionKey: String, data: Array[Byte], rangeCheck: Option[RangeCheck]): Deaggregated =
    KplEnvelope.open(data) match {
      case KplEnvelope.NotAggregated => plain(partitionKey, data, None)
      case KplEnvelope.Corrupt(reason) => plain(partitionKey, data, Some(reason))
      case KplEnvelope.Aggregate(aggregate) =>
        try split(aggregate, rangeCheck)
        catch {
          case e: MalformedAggregateException => plain(partitionKey, data, Some(e.getMessage))
        }
    }

  private def plain(partitionKey: String, data: Array[Byte], corrupt: Option[String]) =
    Deaggregated(IndexedSeq(UserRecord(partitionKey, None, data, 0L)), corrupt, 0)

  private def split(aggregate: AggregatedRecord, rangeCheck: Option[RangeCheck]): Deaggregated = {
    def lookup(table: IndexedSeq[String], index: Long, what: String): String =
      if (index >= 0 && index < table.size) table(index.toInt)
      else throw new MalformedAggregateException(s"a record's $what index $index is outside its table of ${table.size}")
    val all = aggregate.records.zipWithIndex.map { case (entry, i) =>
      val partitionKey = lookup(aggregate.partitionKeys, entry.partitionKeyIndex, "partition key")
      val hashKey = entry.explicitHashKeyIndex.map(lookup(aggregate.explicitHashKeys, _, "explicit hash key"))
      if (hashKey.exists(k => k.isEmpty || !k.forall(_.isDigit))) {
        throw new MalformedAggregateException(s"an explicit hash key is not a decimal number")
      }
      UserRecord(partitionKey, hashKey, entry.data, i.toLong, RecordId.of(entry.tags))
    }
    rangeCheck match {
      case None => Deaggregated(all, None, 0)
      case Some(check) =>
        val hashKeys = all.map(r => HashKeyRange.hashKeyOf(r.partitionKey, r.explicitHashKey))
        val outside = hashKeys.count(k => !check.range.contains(k))
        if (outside == 0) Deaggregated(all, None, 0)
        else if (!check.dropsOutside(hashKeys, marked(aggregate))) Deaggregated(all, None, outside)
        else Deaggregated(all.indices.collect { case i if check.range.contains(hashKeys(i)) => all(i) }, None,
          outside, outside)
    }
  }

  private def marked(aggregate: AggregatedRecord): Boolean =
    aggregate.records.headOption.exists(_.tags.exists(_.key == ResendMark.Key))
}
