package io.github.sparkkinesis.efo

import scala.annotation.tailrec
import scala.jdk.CollectionConverters._

import software.amazon.awssdk.services.kinesis.KinesisClient
import software.amazon.awssdk.services.kinesis.model._

import io.github.sparkkinesis.client.{AwsFailures, ConnectionConfig, ThrottledException}
import io.github.sparkkinesis.errors.KinesisErrors

/** [[ConsumerApi]] on the AWS SDK v2 synchronous client; SDK failures become clear errors. */
final class SdkConsumerApi(client: KinesisClient, connection: ConnectionConfig) extends ConsumerApi {

  override def streamArn(stream: String): String = {
    val request = DescribeStreamSummaryRequest.builder().streamName(stream).build()
    call("DescribeStreamSummary", s"stream '$stream'", Some(stream)) {
      client.describeStreamSummary(request).streamDescriptionSummary().streamARN()
    }
  }

  override def describeConsumer(streamArn: String, name: String): Option[ConsumerInfo] = {
    val request = DescribeStreamConsumerRequest.builder().streamARN(streamArn).consumerName(name).build()
    try {
      call("DescribeStreamConsumer", s"consumer '$name' of $streamArn", None) {
        val c = client.describeStreamConsumer(request).consumerDescription()
        Some(ConsumerInfo(c.consumerName(), c.consumerARN(), c.consumerStatusAsString(), c.consumerCreationTimestamp()))
      }
    } catch {
      case _: ResourceNotFoundException => None
    }
  }

  override def registerConsumer(streamArn: String, name: String): ConsumerInfo = {
    val request = RegisterStreamConsumerRequest.builder().streamARN(streamArn).consumerName(name).build()
    try {
      call("RegisterStreamConsumer", s"consumer '$name' of $streamArn", None) {
        val c = client.registerStreamConsumer(request).consumer()
        ConsumerInfo(c.consumerName(), c.consumerARN(), c.consumerStatusAsString(), c.consumerCreationTimestamp())
      }
    } catch {
      case e: ResourceInUseException =>
        throw new ConsumerNameTakenException(s"consumer '$name' of $streamArn: ${e.getMessage}", e)
    }
  }

  override def deregisterConsumer(streamArn: String, name: String): Boolean = {
    val request = DeregisterStreamConsumerRequest.builder().streamARN(streamArn).consumerName(name).build()
    try {
      call("DeregisterStreamConsumer", s"consumer '$name' of $streamArn", None) {
        client.deregisterStreamConsumer(request)
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
      val response = call("ListStreamConsumers", streamArn, None)(client.listStreamConsumers(request))
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

  /**
   * Throttling becomes a [[ThrottledException]] the caller retries; ResourceNotFound and
   * ResourceInUse pass through for the callers above to interpret; the rest is wrapped.
   */
  private def call[T](operation: String, target: String, stream: Option[String])(body: => T): T =
    try body catch {
      case e: LimitExceededException =>
        throw new ThrottledException(s"$operation on $target was throttled: ${e.getMessage}", e)
      case e: ResourceNotFoundException if stream.isDefined =>
        throw KinesisErrors.streamNotFound(stream.get, connection.where, e)
      case e @ (_: ResourceNotFoundException | _: ResourceInUseException) => throw e
      // Access denied, rejected keys, TLS: the same clear errors as the polling client's.
      case e: KinesisException => throw AwsFailures.toConnectorError(operation, target, connection, e)
      case e: software.amazon.awssdk.core.exception.SdkClientException =>
        throw AwsFailures.toConnectorError(operation, target, connection, e)
    }
}
