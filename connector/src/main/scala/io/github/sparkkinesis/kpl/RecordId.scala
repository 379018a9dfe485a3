// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.kpl

/**
 * The tag this connector's sink puts on every user record with `recordIds`: an id that is the
 * same each time Spark sends the same row again (see ARCHITECTURE.md, "Record ids"), so a
 * reader can drop the repeats of at-least-once writing. KPL tags are ignored by the KCL and the
 * aggregation libraries, so the id changes nothing for readers that do not look for it.
 */
object RecordId {
  val Key = "io.github.sparkkinesis.recordId"

  /** The tags of a user record with the id `id`. */
  def tags(id: String): IndexedSeq[AggregateTag] = IndexedSeq(AggregateTag(Key, Some(id)))

  /** The id among a user record's tags, if its producer gave it one. */
  def of(tags: IndexedSeq[AggregateTag]): Option[String] =
    if (tags.isEmpty) None else tags.collectFirst { case AggregateTag(Key, Some(id)) => id }

  /**
   * One record as a KPL aggregate of itself alone, carrying its id: the form a record with an id
   * takes when it goes as a Kinesis record of its own.
   */
  def wrap(partitionKey: String, explicitHashKey: Option[String], data: Array[Byte], id: String): Array[Byte] = {
    val builder = new AggregateBuilder
    builder.add(partitionKey, explicitHashKey, data, tags(id))
    builder.result()
  }

  /** The length of [[wrap]]'s result, without making it. */
  def wrappedLength(partitionKey: String, explicitHashKey: Option[String], dataLength: Int, id: String): Long =
    new AggregateBuilder().sizeWith(partitionKey, explicitHashKey, dataLength, tags(id))
}
