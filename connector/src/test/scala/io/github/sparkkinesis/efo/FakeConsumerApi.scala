// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.efo

import java.time.Instant

import scala.collection.mutable

import io.github.sparkkinesis.FakeClock
import io.github.sparkkinesis.client.{ConsumerApi, ConsumerInfo, ConsumerNameTakenException, ThrottledException}

/**
 * An in-memory consumer control plane. A registered consumer is CREATING until
 * `activationMs` of the fake clock have passed, as Kinesis takes a few seconds; a
 * deregistered one is DELETING for `deletionMs`. Faults: [[throttleNext]], [[neverActivate]],
 * [[registerElsewhereOnNextRegister]] (another query wins the race for the name).
 */
final class FakeConsumerApi(clock: FakeClock, activationMs: Long = 3000, deletionMs: Long = 2000)
  extends ConsumerApi {

  private final class Consumer(val name: String, val arn: String, val createdMs: Long) {
    var deletedAtMs: Option[Long] = None
    def status(nowMs: Long): Option[String] = deletedAtMs match {
      case Some(d) if nowMs - d >= deletionMs => None
      case Some(_) => Some(ConsumerInfo.Deleting)
      case None if nowMs - createdMs >= activationMs && !neverActive => Some(ConsumerInfo.Active)
      case None => Some(ConsumerInfo.Creating)
    }
  }

  private val streams = mutable.Map.empty[String, mutable.ArrayBuffer[Consumer]]
  private val calls = mutable.Map.empty[String, Int].withDefaultValue(0)
  private var throttled = 0
  private var neverActive = false
  private var raceOnRegister = false
  private var arnCounter = 0

  def createStream(name: String): this.type = synchronized { streams(name) = mutable.ArrayBuffer.empty; this }

  def throttleNext(n: Int): Unit = synchronized { throttled = n }
  def neverActivate(): Unit = synchronized { neverActive = true }
  def registerElsewhereOnNextRegister(): Unit = synchronized { raceOnRegister = true }
  def callCount(op: String): Int = synchronized(calls(op))

  /** Registers a consumer as another query would, outside the code under test. */
  def registerDirectly(stream: String, name: String): String = synchronized(add(stream, name).arn)

  private def streamOf(streamArn: String): mutable.ArrayBuffer[Consumer] =
    streams(streamArn.stripPrefix("arn:aws:kinesis:us-east-1:000000000000:stream/"))

  private def live(streamArn: String, name: String): Option[Consumer] =
    streamOf(streamArn).find(c => c.name == name && c.status(clock.nowMillis).isDefined)

  private def add(stream: String, name: String): Consumer = {
    arnCounter += 1
    val c = new Consumer(name, s"arn:aws:kinesis:us-east-1:000000000000:stream/$stream/consumer/$name:$arnCounter",
      clock.nowMillis)
    streams(stream) += c
    c
  }

  private def info(c: Consumer): ConsumerInfo =
    ConsumerInfo(c.name, c.arn, c.status(clock.nowMillis).get, Instant.ofEpochMilli(c.createdMs))

  private def count(op: String): Unit = {
    calls(op) += 1
    if (throttled > 0) {
      throttled -= 1
      throw new ThrottledException(s"$op was throttled (fake)", null)
    }
  }

  override def streamArn(stream: String): String = synchronized {
    count("DescribeStreamSummary")
    require(streams.contains(stream), s"no stream $stream")
    s"arn:aws:kinesis:us-east-1:000000000000:stream/$stream"
  }

  override def describeConsumer(streamArn: String, name: String): Option[ConsumerInfo] = synchronized {
    count("DescribeStreamConsumer")
    live(streamArn, name).map(info)
  }

  override def describeConsumerArn(consumerArn: String): Option[(ConsumerInfo, String)] = synchronized {
    count("DescribeStreamConsumer")
    streams.values.flatten.find(c => c.arn == consumerArn && c.status(clock.nowMillis).isDefined)
      .map(c => info(c) -> c.arn.substring(0, c.arn.indexOf("/consumer/")))
  }

  override def registerConsumer(streamArn: String, name: String): ConsumerInfo = synchronized {
    count("RegisterStreamConsumer")
    val stream = streamArn.split("/").last
    if (raceOnRegister) {
      raceOnRegister = false
      add(stream, name)
    }
    if (live(streamArn, name).isDefined) {
      throw new ConsumerNameTakenException(s"consumer $name exists (fake)", null)
    }
    info(add(stream, name))
  }

  override def deregisterConsumer(streamArn: String, name: String): Boolean = synchronized {
    count("DeregisterStreamConsumer")
    live(streamArn, name).filter(_.deletedAtMs.isEmpty) match {
      case Some(c) =>
        c.deletedAtMs = Some(clock.nowMillis)
        true
      case None => false
    }
  }

  override def listConsumers(streamArn: String): Seq[ConsumerInfo] = synchronized {
    count("ListStreamConsumers")
    streamOf(streamArn).filter(_.status(clock.nowMillis).isDefined).map(info).toSeq
  }
}
