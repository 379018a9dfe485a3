// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source.realtime

import java.nio.file.Files

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.FakeKinesisApi
import io.github.sparkkinesis.client.sdk.KinesisClients
import io.github.sparkkinesis.options.KinesisSourceOptions

/** The real-time stream's own life: what it holds on the driver is let go of at its stop, in either mode. */
class KinesisRealTimeStreamSuite extends AnyFunSuite with Matchers {

  private val options = KinesisSourceOptions.parse(Map(
      "streamName" -> "clicks", "region" -> "ap-northeast-3", "initialPosition" -> "trim_horizon"))

  private def stream() = {
    val metadataPath = Files.createTempDirectory("kinesis-real-time-stream-").resolve("sources/0").toString
    new KinesisRealTimeStream(options, metadataPath, new FakeKinesisApi().createStream("clicks", 1), null)
  }

  test("stopped in real-time mode, the stream lets go of the driver's clients, as in micro-batch mode") {
    val before = KinesisClients.userCount(options.connection)
    val realTime = stream()
    realTime.prepareForRealTimeMode()
    KinesisClients.userCount(options.connection) shouldBe before + 1
    realTime.stop()
    KinesisClients.userCount(options.connection) shouldBe before
    val microBatch = stream()
    microBatch.stop()
    KinesisClients.userCount(options.connection) shouldBe before
  }
}
