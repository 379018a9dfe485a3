// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.kpl

import java.nio.charset.StandardCharsets
import java.security.MessageDigest

/** The 128-bit hash keys a shard takes, both ends included, as ListShards gives them. */
final case class HashKeyRange(start: BigInt, end: BigInt) {
  def contains(hashKey: BigInt): Boolean = hashKey >= start && hashKey <= end
}

object HashKeyRange {
  val MaxHashKey: BigInt = (BigInt(1) << 128) - 1

  /** What an explicit hash key beyond [[MaxHashKey]] is read as: a number outside every shard's range. */
  val BeyondMaxHashKey: BigInt = MaxHashKey + 1

  private val MaxHashKeyDigits = MaxHashKey.toString.length

  def apply(start: String, end: String): HashKeyRange = HashKeyRange(BigInt(start), BigInt(end))

  /**
   * The hash key Kinesis files a record under: its explicit hash key when given, else the MD5
   * of its partition key read as an unsigned 128-bit number.
   */
  def hashKeyOf(partitionKey: String, explicitHashKey: Option[String]): BigInt =
    explicitHashKey match {
      case Some(key) =>
        // A key of more digits than 2^128 has is outside every shard: reading it as a number would
        // take time that grows with the square of its length (minutes for a record's megabytes).
        var first = 0
        while (first < key.length - 1 && key.charAt(first) == '0') first += 1
        if (key.length - first > MaxHashKeyDigits) BeyondMaxHashKey else BigInt(key)
      case None =>
        BigInt(1, MessageDigest.getInstance("MD5").digest(partitionKey.getBytes(StandardCharsets.UTF_8)))
    }
}
