package io.github.sparkkinesis.client

import java.time.Instant

import scala.annotation.tailrec
import scala.jdk.CollectionConverters._

import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration
import software.amazon.awssdk.awscore.exception.AwsServiceException
import software.amazon.awssdk.core.SdkBytes
import software.amazon.awssdk.core.exception.SdkException
import software.amazon.awssdk.services.kinesis.KinesisClient
import software.amazon.awssdk.services.kinesis.model._

import io.github.sparkkinesis.errors.KinesisErrors
import io.github.sparkkinesis.kpl.HashKeyRange
import io.github.sparkkinesis.offsets.ShardPosition

/**
 * [[KinesisApi]] and [[KinesisPutApi]] on the AWS SDK v2 synchronous client. Turns SDK
 * failures into clear errors.
 */
final class SdkKinesisApi(client: KinesisClient, connection: ConnectionConfig)
  extends KinesisApi with KinesisPutApi {

  override def listShards(stream: String, pageSize: Int): Seq[ShardDescription] = {
    // The first page names the stream; later pages carry only the token, as the API requires.
    @tailrec
    def pages(token: Option[String], acc: Vector[Shard]): Vector[Shard] = {
      val request = token match {
        case Some(t) => ListShardsRequest.builder().nextToken(t).maxResults(pageSize).build()
        case None => ListShardsRequest.builder().streamName(stream).maxResults(pageSize).build()
      }
      val response = call("ListShards", s"stream '$stream'", Some(stream))(client.listShards(request))
      val all = acc ++ response.shards().asScala
      Option(response.nextToken()) match {
        case Some(next) => pages(Some(next), all)
        case None => all
      }
    }
    pages(None, Vector.empty).map { s =>
      ShardDescription(
        shardId = s.shardId(),
        parentShardId = Option(s.parentShardId()),
        adjacentParentShardId = Option(s.adjacentParentShardId()),
        closed = Option(s.sequenceNumberRange()).flatMap(r => Option(r.endingSequenceNumber())).isDefined,
        hashKeyRange = Option(s.hashKeyRange()).map(r => HashKeyRange(r.startingHashKey(), r.endingHashKey())))
    }
  }

  override def streamCreatedAt(stream: String): Long = {
    val request = DescribeStreamSummaryRequest.builder().streamName(stream).build()
    call("DescribeStreamSummary", s"stream '$stream'", Some(stream)) {
      client.describeStreamSummary(request).streamDescriptionSummary().streamCreationTimestamp().toEpochMilli
    }
  }

  override def shardIterator(stream: String, shardId: String, position: ShardPosition): String = {
    val base = GetShardIteratorRequest.builder().streamName(stream).shardId(shardId)
    val request = position match {
      case ShardPosition.TrimHorizon => base.shardIteratorType(ShardIteratorType.TRIM_HORIZON)
      case ShardPosition.AtTimestamp(ms) =>
        base.shardIteratorType(ShardIteratorType.AT_TIMESTAMP).timestamp(Instant.ofEpochMilli(ms))
      case ShardPosition.AfterSequence(seq, None) =>
        base.shardIteratorType(ShardIteratorType.AFTER_SEQUENCE_NUMBER).startingSequenceNumber(seq)
      case ShardPosition.AfterSequence(seq, Some(_)) =>
        // Inside an aggregate: read it again; the reader skips the user records already read.
        base.shardIteratorType(ShardIteratorType.AT_SEQUENCE_NUMBER).startingSequenceNumber(seq)
      case ShardPosition.AtSequence(seq) =>
        base.shardIteratorType(ShardIteratorType.AT_SEQUENCE_NUMBER).startingSequenceNumber(seq)
      case end: ShardPosition.ShardEnd =>
        throw new IllegalArgumentException(s"no iterator exists past the end of a closed shard ($end)")
    }
    call("GetShardIterator", s"shard $stream/$shardId", Some(stream)) {
      client.getShardIterator(request.build()).shardIterator()
    }
  }

  override def getRecords(iterator: String, limit: Int, hashRange: Option[HashKeyRange]): RecordBatch = {
    val request = GetRecordsRequest.builder().shardIterator(iterator).limit(limit)
      .overrideConfiguration((o: AwsRequestOverrideConfiguration.Builder) => o.addPlugin(ThrottlingSurfaces.plugin))
      .build()
    val response = call("GetRecords", "a shard iterator", None)(client.getRecords(request))
    val (records, kpl) = UserRecords.expand(response.records().asScala.map(SdkKinesisApi.raw), hashRange)
    RecordBatch(
      records = records,
      nextIterator = Option(response.nextShardIterator()),
      millisBehindLatest = Option(response.millisBehindLatest()).map(_.longValue).getOrElse(0L),
      kpl = kpl)
  }

  override def putRecords(stream: String, entries: IndexedSeq[PutEntry]): IndexedSeq[Option[PutFailure]] = {
    val request = PutRecordsRequest.builder().streamName(stream).records(entries.map { e =>
      val entry = PutRecordsRequestEntry.builder()
        .partitionKey(e.partitionKey)
        .data(SdkBytes.fromByteArrayUnsafe(e.data))
      e.explicitHashKey.foreach(entry.explicitHashKey)
      entry.build()
    }.asJava).build()
    val response = try {
      call("PutRecords", s"stream '$stream'", Some(stream))(client.putRecords(request))
    } catch {
      // The whole call was throttled (after the SDK's own retries): every entry was refused.
      case t: ThrottledException =>
        val code = t.getCause match {
          case e: AwsServiceException if e.awsErrorDetails() != null => e.awsErrorDetails().errorCode()
          case _ => "ProvisionedThroughputExceededException"
        }
        return entries.map(_ => Some(PutFailure(code, t.getMessage)))
    }
    val results = response.records().asScala.toIndexedSeq
    require(results.size == entries.size,
      s"PutRecords to stream '$stream' answered for ${results.size} of ${entries.size} records")
    results.map { r =>
      Option(r.errorCode()).map(code => PutFailure(code, Option(r.errorMessage()).getOrElse("")))
    }
  }

  /**
   * Turns throttling and expired iterators into the types callers retry on; credential,
   * permission and TLS failures into their own errors ([[AwsFailures]]); wraps the rest.
   */
  private def call[T](operation: String, target: String, stream: Option[String])(body: => T): T =
    try body catch {
      case e @ (_: ProvisionedThroughputExceededException | _: LimitExceededException) =>
        throw new ThrottledException(s"$operation on $target was throttled: ${e.getMessage}", e)
      case e: ExpiredIteratorException =>
        throw new IteratorExpiredException(s"$operation: ${e.getMessage}", e)
      case e: SdkException if AwsFailures.interrupted(e) =>
        // The query is stopping (Spark interrupts its thread): not a Kinesis failure, and Spark
        // ends the query cleanly only when it sees an interruption.
        throw new InterruptedException(s"$operation on $target was interrupted")
      case e: ResourceNotFoundException if stream.isDefined =>
        throw KinesisErrors.streamNotFound(stream.get, connection.where, e)
      case e @ (_: KinesisException | _: SdkException) =>
        throw AwsFailures.toConnectorError(operation, target, connection, e)
    }
}

object SdkKinesisApi {
  /** A record of GetRecords or of a SubscribeToShard event, before its aggregate is split. */
  def raw(r: Record): UserRecords.Raw = UserRecords.Raw(r.partitionKey(), r.data().asByteArray(), r.sequenceNumber(),
    Option(r.approximateArrivalTimestamp()).map(_.toEpochMilli).getOrElse(0L))
}
