package io.github.sparkkinesis.kpl

/** A record as its producer wrote it; `subSequenceNumber` is its index in the aggregate (0 when not aggregated). */
final case class UserRecord(
    partitionKey: String,
    explicitHashKey: Option[String],
    data: Array[Byte],
    subSequenceNumber: Long)

/**
 * What one Kinesis record holds. `corrupt` names why a record with the magic bytes was passed
 * on whole; `outOfRange` counts user records dropped for a hash key outside the shard's range.
 */
final case class Deaggregated(records: IndexedSeq[UserRecord], corrupt: Option[String], outOfRange: Int)

/**
 * Splits KPL aggregates into their user records, checking them as the Kinesis Client Library
 * does: an aggregate whose digest or body is bad is passed on as one ordinary record, and user
 * records whose hash key falls outside the shard's range are dropped (the producer aggregated
 * them for a shard that has since been split or merged; the shard that owns the key does not
 * have them either, so every read of this shard must drop them alike, to stay repeatable).
 */
object Deaggregator {

  def apply(partitionKey: String, data: Array[Byte], shardRange: Option[HashKeyRange]): Deaggregated =
    KplEnvelope.open(data) match {
      case KplEnvelope.NotAggregated => plain(partitionKey, data, None)
      case KplEnvelope.Corrupt(reason) => plain(partitionKey, data, Some(reason))
      case KplEnvelope.Aggregate(aggregate) =>
        try split(aggregate, shardRange)
        catch {
          case e: MalformedAggregateException => plain(partitionKey, data, Some(e.getMessage))
        }
    }

  private def plain(partitionKey: String, data: Array[Byte], corrupt: Option[String]) =
    Deaggregated(IndexedSeq(UserRecord(partitionKey, None, data, 0L)), corrupt, 0)

  private def split(aggregate: AggregatedRecord, shardRange: Option[HashKeyRange]): Deaggregated = {
    def lookup(table: IndexedSeq[String], index: Long, what: String): String =
      if (index >= 0 && index < table.size) table(index.toInt)
      else throw new MalformedAggregateException(s"a record's $what index $index is outside its table of ${table.size}")
    val all = aggregate.records.zipWithIndex.map { case (entry, i) =>
      val partitionKey = lookup(aggregate.partitionKeys, entry.partitionKeyIndex, "partition key")
      val hashKey = entry.explicitHashKeyIndex.map(lookup(aggregate.explicitHashKeys, _, "explicit hash key"))
      if (hashKey.exists(k => k.isEmpty || !k.forall(_.isDigit))) {
        throw new MalformedAggregateException(s"an explicit hash key is not a decimal number")
      }
      UserRecord(partitionKey, hashKey, entry.data, i.toLong)
    }
    val kept = shardRange match {
      case Some(range) => all.filter(r => range.contains(HashKeyRange.hashKeyOf(r.partitionKey, r.explicitHashKey)))
      case None => all
    }
    Deaggregated(kept, None, all.size - kept.size)
  }
}
