// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.sdk

import scala.annotation.tailrec
import scala.jdk.CollectionConverters._

import software.amazon.awssdk.services.kinesis.KinesisClient
import software.amazon.awssdk.services.kinesis.model._
import io.github.sparkkinesis.client.{ConnectionConfig, ConsumerApi, ConsumerInfo, ConsumerNameTakenException}

/**
 * [[ConsumerApi]] on the AWS SDK v2 synchronous client; failures are translated by
 * [[SdkCalls]]. `client` is asked for at every call, so a client the JVM's cache closed while
 * idle is built again.
 */
final class SdkConsumerApi(client: () => KinesisClient, connection: ConnectionConfig) extends ConsumerApi {

  override def streamArn(stream: String): String = {
    // A stream named by ARN is still described: that checks it exists before consumers are registered on it.
    val builder = DescribeStreamSummaryRequest.builder()
    val request = connection.streamArn(stream).fold(builder.streamName(stream))(builder.streamARN(_)).build()
    val shown = connection.streamShown(stream)
    call("DescribeStreamSummary", s"stream '$shown'", Some(shown)) {
      client().describeStreamSummary(request).streamDescriptionSummary().streamARN()
    }
  }

  override def describeConsumer(streamArn: String, name: String): Option[ConsumerInfo] = {
    val request = DescribeStreamConsumerRequest.builder().streamARN(streamArn).consumerName(name).build()
    try {
      call("DescribeStreamConsumer", s"consumer '$name' of $streamArn", None) {
        Some(info(client().describeStreamConsumer(request).consumerDescription()))
      }
    } catch {
      case _: ResourceNotFoundException => None
    }
  }

  override def describeConsumerArn(consumerArn: String): Option[(ConsumerInfo, String)] = {
    val request = DescribeStreamConsumerRequest.builder().consumerARN(consumerArn).build()
    try {
      call("DescribeStreamConsumer", s"consumer $consumerArn", None) {
        val c = client().describeStreamConsumer(request).consumerDescription()
        Some(info(c) -> c.streamARN())
      }
    } catch {
      case _: ResourceNotFoundException => None
    }
  }

  override def registerConsumer(streamArn: String, name: String): ConsumerInfo = {
    val request = RegisterStreamConsumerRequest.builder().streamARN(streamArn).consumerName(name).build()
    try {
      call("RegisterStreamConsumer", s"consumer '$name' of $streamArn", None) {
        val c = client().registerStreamConsumer(request).consumer()
        ConsumerInfo(c.consumerName(), c.consumerARN(), c.consumerStatusAsString(), c.consumerCreationTimestamp())
      }
    } catch {
      case e: ResourceInUseException =>
        val clean = SdkCalls.shown(e, connection)
        throw new ConsumerNameTakenException(s"consumer '$name' of $streamArn: ${clean.getMessage}", clean)
    }
  }

  override def deregisterConsumer(streamArn: String, name: String): Boolean = {
    val request = DeregisterStreamConsumerRequest.builder().streamARN(streamArn).consumerName(name).build()
    try {
      call("DeregisterStreamConsumer", s"consumer '$name' of $streamArn", None) {
        client().deregisterStreamConsumer(request)
      }
      true
    } catch {
      case _: ResourceNotFoundException => false
    }
  }

  override def listConsumers(streamArn: String): Seq[ConsumerInfo] = {
    @tailrec
    def pages(token: Option[String], acc: Vector[ConsumerInfo]): Vector[ConsumerInfo] = {
      // Unlike ListShards, every page names the stream as well as the token.
      val base = ListStreamConsumersRequest.builder().streamARN(streamArn)
      val request = token.fold(base)(t => base.nextToken(t)).build()
      val response = call("ListStreamConsumers", streamArn, None)(client().listStreamConsumers(request))
      val all = acc ++ response.consumers().asScala.map { c =>
        ConsumerInfo(c.consumerName(), c.consumerARN(), c.consumerStatusAsString(), c.consumerCreationTimestamp())
      }
      Option(response.nextToken()) match {
        case Some(next) => pages(Some(next), all)
        case None => all
      }
    }
    pages(None, Vector.empty)
  }

  private def call[T](operation: String, target: String, stream: Option[String])(body: => T): T =
    SdkCalls(operation, target, stream, connection, passThrough = true)(body)

  private def info(c: ConsumerDescription): ConsumerInfo =
    ConsumerInfo(c.consumerName(), c.consumerARN(), c.consumerStatusAsString(), c.consumerCreationTimestamp())
}
