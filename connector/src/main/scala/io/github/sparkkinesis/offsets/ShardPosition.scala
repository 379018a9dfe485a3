// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.offsets

/** A shard of a stream; offsets are kept per stream and shard. */
final case class ShardKey(stream: String, shardId: String) {
  // Computed once: shard keys are looked up in maps of thousands at every trigger and round.
  override val hashCode: Int = scala.util.hashing.MurmurHash3.productHash(this)

  override def toString: String = s"$stream/$shardId"
}

object ShardKey {
  // Without a tuple per comparison: thousands of shards are sorted at every prefetch round.
  implicit val ordering: Ordering[ShardKey] = new Ordering[ShardKey] {
    override def compare(a: ShardKey, b: ShardKey): Int = {
      val byStream = a.stream.compareTo(b.stream)
      if (byStream != 0) byStream else a.shardId.compareTo(b.shardId)
    }
  }
}

/**
 * A concrete place in a shard: reading from it always yields the same records, which is
 * what lets a failed batch be re-run exactly (ARCHITECTURE.md invariant 1). "latest" is
 * never stored; it is turned into the time the query first started.
 */
sealed trait ShardPosition extends Serializable {
  /** The sequence number of the last record before this position, if one is known. */
  def lastSequence: Option[String]
}

object ShardPosition {
  /** Before the oldest record still in the shard. */
  case object TrimHorizon extends ShardPosition {
    def lastSequence: Option[String] = None
  }

  /** Before the first record that arrived at or after this time. */
  final case class AtTimestamp(epochMillis: Long) extends ShardPosition {
    def lastSequence: Option[String] = None
  }

  /** At the record with this sequence number (a replay point the user gave). */
  final case class AtSequence(sequenceNumber: String) extends ShardPosition {
    def lastSequence: Option[String] = None
  }

  /**
   * Just after the record with this sequence number; with `subSequence`, just after that user
   * record of a KPL aggregate, whose later user records are still to be read.
   */
  final case class AfterSequence(sequenceNumber: String, subSequence: Option[Long] = None) extends ShardPosition {
    def lastSequence: Option[String] = Some(sequenceNumber)
    override def toString: String =
      s"AfterSequence($sequenceNumber${subSequence.map(s => s", sub $s").getOrElse("")})"
  }

  /**
   * The shard is closed (split or merged) and every record has been read; `lastSequence` is
   * the last record, when the query read any. Children of the shard may now be read.
   */
  final case class ShardEnd(lastSequence: Option[String]) extends ShardPosition

  /**
   * Kinesis sequence numbers are decimal strings of up to 128 bits; compare them as numbers.
   * Without parsing (this runs for every record read): past any leading zeros, the longer
   * string is the larger number, and strings of one length compare digit by digit. Both must be
   * decimal digits: Kinesis gives no others, and the offset JSON refuses others.
   */
  def compareSequences(a: String, b: String): Int = {
    val aStart = firstSignificant(a)
    val bStart = firstSignificant(b)
    val aLength = a.length - aStart
    val bLength = b.length - bStart
    if (aLength != bLength) Integer.compare(aLength, bLength)
    else {
      var i = 0
      while (i < aLength && a.charAt(aStart + i) == b.charAt(bStart + i)) i += 1
      if (i == aLength) 0 else Character.compare(a.charAt(aStart + i), b.charAt(bStart + i))
    }
  }

  /** Where `sequence`'s digits start once leading zeros are skipped ("0" keeps its last digit). */
  private def firstSignificant(sequence: String): Int = {
    var i = 0
    while (i < sequence.length - 1 && sequence.charAt(i) == '0') i += 1
    i
  }

  /**
   * Whether the user record (`sequenceNumber`, `subSequence`) lies past `position`: later in the
   * shard, or a later user record of the aggregate the position stopped inside.
   */
  def isPast(sequenceNumber: String, subSequence: Long, position: ShardPosition): Boolean = position match {
    case AfterSequence(seq, sub) =>
      val c = compareSequences(sequenceNumber, seq)
      c > 0 || (c == 0 && sub.exists(subSequence > _))
    case AtSequence(seq) => compareSequences(sequenceNumber, seq) >= 0
    case _: ShardEnd => false
    case TrimHorizon | AtTimestamp(_) => true
  }

  /** Whether having read up to `position` covers every record up to `end` (both after a record). */
  def covers(position: ShardPosition, end: ShardPosition): Boolean = (point(position), point(end)) match {
    case (Some((seq, sub)), Some((endSeq, endSub))) =>
      val c = compareSequences(seq, endSeq)
      c > 0 || (c == 0 && sub >= endSub)
    case _ => false
  }

  /** A position after a record, as (sequence number, sub-sequence), a whole record counting as the last sub-sequence. */
  private def point(position: ShardPosition): Option[(String, Long)] = position match {
    case AfterSequence(seq, sub) => Some(seq -> sub.getOrElse(Long.MaxValue))
    case ShardEnd(Some(seq)) => Some(seq -> Long.MaxValue)
    case _ => None
  }
}
