// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import java.nio.ByteBuffer

import org.apache.spark.sql.kinesis.KinesisDriverEndpoint

/**
 * How a running prefetch task hands the driver the blocks it just stored, and hears whether to
 * go on: a call to the query's endpoint on the driver (see [[Prefetcher]]). Results travel as
 * bytes ([[PrefetchResultCodec]]), so Spark's RPC never loads a connector class.
 */
object PrefetchReports {

  /** The driver endpoint's name for the query's stream instance. */
  def endpointName(streamInstance: String): String = s"kinesis-prefetch-$streamInstance"

  /** Sends `result` to endpoint `name`, and returns the driver's reply. */
  def send(name: String)(result: PrefetchResult): HandOverReply = reply(KinesisDriverEndpoint.ask(name, encode(result)))

  /** This JVM no longer reports for the stream instance (its query stopped). */
  def forget(streamInstance: String): Unit = KinesisDriverEndpoint.forget(endpointName(streamInstance))

  def encode(result: PrefetchResult): Array[Byte] = PrefetchResultCodec.encode(result)

  def decode(bytes: Array[Byte]): PrefetchResult = PrefetchResultCodec.decode(bytes)

  def answer(reply: HandOverReply): Array[Byte] =
    ByteBuffer.allocate(9).put(if (reply.keepReading) Continue else Stop).putLong(reply.tipFetchPeriodMs).array()

  def reply(answer: Array[Byte]): HandOverReply =
    if (answer.length < 9) HandOverReply(keepReading = false)
    else {
      val in = ByteBuffer.wrap(answer)
      HandOverReply(in.get() == Continue, in.getLong())
    }

  private val Continue: Byte = 1
  private val Stop: Byte = 0
}
