// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.kpl

/**
 * What a reader does with the user records of an aggregate whose hash keys fall outside the
 * range of the shard holding it (option `outOfRangeUserRecords`). Producers put such records
 * there for two reasons: the AWS aggregation libraries (Python, Node, Go, Java) and hand-made
 * aggregates mix keys on purpose, and they are that producer's only copy; a producer whose
 * shard map went stale across a split (the KPL, this connector's sink) put the aggregate under
 * the parent's range and then writes the records outside the child's range again, so those are
 * repeats. See ARCHITECTURE.md, "KPL aggregated records".
 */
sealed abstract class OutOfRangePolicy(val name: String) extends Serializable

object OutOfRangePolicy {

  /**
   * Keep every user record, except the repeats a producer announces: an aggregate marked
   * with [[ResendMark]] (this connector's sink marks its own) has its out-of-range records
   * written again by that producer.
   */
  case object Keep extends OutOfRangePolicy("keep")

  /**
   * Also drop the out-of-range records of an unmarked aggregate whose records all fall in the
   * range of a parent of the shard (the KPL's stale map, which it corrects by writing them
   * again). Loses records of a mixed-key producer on a stream that was split.
   */
  case object DropAfterSplit extends OutOfRangePolicy("dropAfterSplit")

  /** The Kinesis Client Library's filter: drop every out-of-range record. Loses mixed-key producers' records. */
  case object Drop extends OutOfRangePolicy("drop")

  val all: Seq[OutOfRangePolicy] = Seq(Keep, DropAfterSplit, Drop)

  def named(name: String): Option[OutOfRangePolicy] = all.find(_.name.equalsIgnoreCase(name))
}

/** A shard's hash-key range, the ranges of its parents still known, and the policy for records outside it. */
final case class RangeCheck(range: HashKeyRange, parentRanges: Seq[HashKeyRange], policy: OutOfRangePolicy) {

  /**
   * Whether the out-of-range records of one aggregate are dropped, given the hash keys of all
   * its records and whether its producer marked it as one whose out-of-range records it sends again.
   */
  def dropsOutside(hashKeys: IndexedSeq[BigInt], markedByProducer: Boolean): Boolean = policy match {
    case OutOfRangePolicy.Drop => true
    case _ if markedByProducer => true
    case OutOfRangePolicy.DropAfterSplit => parentRanges.exists(p => hashKeys.forall(p.contains))
    case OutOfRangePolicy.Keep => false
  }
}

/**
 * The tag a producer puts on the first record of an aggregate to say: the records of this
 * aggregate that land on a shard not owning their hash key are written again by me (its value
 * names the shard the aggregate was built for). KPL tags (field 4 of a record) are ignored by
 * the KCL and the aggregation libraries, so the mark changes nothing for other readers.
 */
object ResendMark {
  val Key = "io.github.sparkkinesis.resendsMisrouted"

  /** The first record's tags of an aggregate built for `shardId` by a producer that sends misrouted records again. */
  def tags(shardId: String): IndexedSeq[AggregateTag] = IndexedSeq(AggregateTag(Key, Some(shardId)))
}
