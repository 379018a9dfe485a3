// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.kpl

import java.nio.charset.StandardCharsets

/** KPL aggregates for tests, written with the connector's own codec. */
object KplTestData {
  /** An aggregate of (partition key, payload) user records, keys tabled once each. */
  def aggregate(records: (String, String)*): Array[Byte] = aggregateWithHashKeys(records.map { case (k, d) =>
    (k, None, d)
  }: _*)

  def aggregateWithHashKeys(records: (String, Option[String], String)*): Array[Byte] = {
    val keys = records.map(_._1).distinct.toIndexedSeq
    val hashKeys = records.flatMap(_._2).distinct.toIndexedSeq
    KplEnvelope.wrap(AggregatedRecord(keys, hashKeys,
        records.map { case (k, h, d) =>
          AggregatedEntry(keys.indexOf(k).toLong, h.map(hashKeys.indexOf(_).toLong), d.getBytes(StandardCharsets.UTF_8))
        }.toIndexedSeq))
  }

  def text(bytes: Array[Byte]): String = new String(bytes, StandardCharsets.UTF_8)
}
