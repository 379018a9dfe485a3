// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import org.apache.spark.sql.kinesis.KinesisDriverEndpoint

/**
 * How a running prefetch task hands the driver the blocks it just stored, and hears whether to
 * go on: a call to the query's endpoint on the driver (see [[Prefetcher]]). Results travel as
 * bytes ([[PrefetchResultCodec]]), so Spark's RPC never loads a connector class.
 */
object PrefetchReports {

  /** The driver endpoint's name for the query's stream instance. */
  def endpointName(streamInstance: String): String = s"kinesis-prefetch-$streamInstance"

  /** Sends `result` to endpoint `name`; true when the task should keep reading. */
  def send(name: String)(result: PrefetchResult): Boolean =
    KinesisDriverEndpoint.ask(name, encode(result)).headOption.contains(Continue)

  /** This JVM no longer reports for the stream instance (its query stopped). */
  def forget(streamInstance: String): Unit = KinesisDriverEndpoint.forget(endpointName(streamInstance))

  def encode(result: PrefetchResult): Array[Byte] = PrefetchResultCodec.encode(result)

  def decode(bytes: Array[Byte]): PrefetchResult = PrefetchResultCodec.decode(bytes)

  def answer(keepReading: Boolean): Array[Byte] = Array(if (keepReading) Continue else Stop)

  private val Continue: Byte = 1
  private val Stop: Byte = 0
}
