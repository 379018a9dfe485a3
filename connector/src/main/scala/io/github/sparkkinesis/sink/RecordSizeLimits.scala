// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import scala.collection.mutable

import io.github.sparkkinesis.client.{KinesisPutApi, PutEntry}
import io.github.sparkkinesis.errors.KinesisErrors

/**
 * Refuses a record larger than its stream takes. Every stream takes 1 MiB (data plus partition
 * key); one configured for larger records (`MaxRecordSizeInKiB`) up to 10 MiB. A stream's limit
 * is asked of Kinesis (DescribeStreamSummary) only when a record over 1 MiB is bound for it,
 * once per writer, so writing ordinary rows costs no call and no extra permission. Called by
 * the writer's thread only.
 */
private[sink] final class RecordSizeLimits(api: KinesisPutApi) {
  private val limits = mutable.HashMap.empty[String, Long]

  /** `size`: what the record weighs as sent (more than the entry's own when it carries an id). */
  def check(stream: String, entry: PutEntry, size: Long = -1L): Unit = {
    val sent = if (size < 0) entry.size.toLong else size
    if (sent > KinesisPutApi.DefaultMaxRecordBytes) {
      val limit = limits.getOrElseUpdate(stream, api.maxRecordBytes(stream))
      if (sent > limit) {
        val dataBytes = entry.data.length.toLong
        throw KinesisErrors.sinkRecordTooLarge(stream, sent, dataBytes, sent - dataBytes, limit)
      }
    }
  }
}

private[sink] object RecordSizeLimits {
  /** The most any stream takes (a `MaxRecordSizeInKiB` of 10240). */
  val MaxBytes: Long = 10L * 1024 * 1024
}
