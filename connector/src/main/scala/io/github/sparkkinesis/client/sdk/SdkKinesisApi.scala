// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.sdk

import scala.annotation.tailrec
import scala.jdk.CollectionConverters._

import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration
import software.amazon.awssdk.awscore.exception.AwsServiceException
import software.amazon.awssdk.core.SdkBytes
import software.amazon.awssdk.services.kinesis.KinesisClient
import software.amazon.awssdk.services.kinesis.model._

import io.github.sparkkinesis.kpl.{HashKeyRange, RangeCheck}
import io.github.sparkkinesis.offsets.ShardPosition
import io.github.sparkkinesis.client.{
  ConnectionConfig, KinesisApi, KinesisPutApi, PutEntry, PutFailure, PutResult, PutStored, RecordBatch,
  ShardDescription, ThrottledException
}
import io.github.sparkkinesis.client.wire.GetRecordsDecoding

/**
 * [[KinesisApi]] and [[KinesisPutApi]] on the AWS SDK v2 synchronous client; failures are
 * translated by [[SdkCalls]]. `client` is asked for at every call, so a client the JVM's
 * cache closed while idle is built again. A stream the user named by ARN is named by its ARN
 * in every request that names a stream ([[ConnectionConfig.streamArns]]). GetRecords is called on
 * `recordsClient`, whose SDK does not retry throttling ([[AwsClientFactory.recordsKinesis]]).
 */
final class SdkKinesisApi(client: () => KinesisClient, connection: ConnectionConfig,
    recordsClient: () => KinesisClient)
  extends KinesisApi with KinesisPutApi {

  override def listShards(stream: String, pageSize: Int): Seq[ShardDescription] = {
    // The first page names the stream; later pages carry only the token, as the API requires.
    @tailrec
    def pages(token: Option[String], acc: Vector[Shard]): Vector[Shard] = {
      val request = token match {
        case Some(t) => ListShardsRequest.builder().nextToken(t).maxResults(pageSize).build()
        case None =>
          naming(ListShardsRequest.builder(), stream)(_.streamName(_), _.streamARN(_)).maxResults(pageSize).build()
      }
      val response = call("ListShards", shown(stream), Some(stream))(client().listShards(request))
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
    val request = naming(DescribeStreamSummaryRequest.builder(), stream)(_.streamName(_), _.streamARN(_)).build()
    call("DescribeStreamSummary", shown(stream), Some(stream)) {
      client().describeStreamSummary(request).streamDescriptionSummary().streamCreationTimestamp().toEpochMilli
    }
  }

  override def maxRecordBytes(stream: String): Long = {
    val request = naming(DescribeStreamSummaryRequest.builder(), stream)(_.streamName(_), _.streamARN(_)).build()
    call("DescribeStreamSummary", shown(stream), Some(stream)) {
      Option(client().describeStreamSummary(request).streamDescriptionSummary().maxRecordSizeInKiB())
        .map(_.longValue * 1024).getOrElse(KinesisPutApi.DefaultMaxRecordBytes)
    }
  }

  override def shardIterator(stream: String, shardId: String, position: ShardPosition): String = {
    val request =
      naming(SdkPositions.iteratorRequest(shardId, position), stream)(_.streamName(_), _.streamARN(_)).build()
    call("GetShardIterator", s"shard $shardId of ${shown(stream)}", Some(stream)) {
      client().getShardIterator(request).shardIterator()
    }
  }

  override def getRecords(
      stream: String, iterator: String, limit: Int, rangeCheck: Option[RangeCheck]): RecordBatch = {
    // The iterator alone identifies the shard; the ARN, when known, is what a stream of another
    // account is authorized by (as in every other call about it).
    val decoded = new GetRecordsDecoding.Decoded(rangeCheck)
    val request = recordsRequest(stream, iterator, limit, decoded)
    // The records are read inside the call, so that an answer without a required field fails as the call.
    val (response, (records, kpl)) = call("GetRecords", s"a shard iterator of ${shown(stream)}", Some(stream)) {
      val answer = recordsClient().getRecords(request)
      (answer, decoded.records.getOrElse(SdkRecords.toKinesisRecords(answer.records(), rangeCheck)))
    }
    RecordBatch(
      records = records,
      nextIterator = Option(response.nextShardIterator()),
      millisBehindLatest = Option(response.millisBehindLatest()).map(_.longValue).getOrElse(0L),
      kpl = kpl)
  }

  /**
   * A GetRecords request; its answer's records are read by the connector into `decoded`, or,
   * with `recordDecoder` sdk, left to the SDK (the interceptor acts only on requests carrying
   * the attribute).
   */
  private[client] def recordsRequest(stream: String, iterator: String, limit: Int,
      decoded: GetRecordsDecoding.Decoded): GetRecordsRequest = {
    val request = GetRecordsRequest.builder().shardIterator(iterator).limit(limit)
      .overrideConfiguration { (o: AwsRequestOverrideConfiguration.Builder) =>
        if (!connection.sdkDecoding) o.putExecutionAttribute(GetRecordsDecoding.Attribute, decoded)
      }
    connection.streamArn(stream).foreach(request.streamARN)
    request.build()
  }

  override def putRecords(stream: String, entries: IndexedSeq[PutEntry]): IndexedSeq[PutResult] = {
    val named = naming(PutRecordsRequest.builder(), stream)(_.streamName(_), _.streamARN(_))
    val request = named.records(entries.map { e =>
      val entry = PutRecordsRequestEntry.builder()
        .partitionKey(e.partitionKey)
        .data(SdkBytes.fromByteArrayUnsafe(e.data))
      e.explicitHashKey.foreach(entry.explicitHashKey)
      entry.build()
    }.asJava).build()
    val response =
      try {
        call("PutRecords", shown(stream), Some(stream))(client().putRecords(request))
      } catch {
        // The whole call was throttled (after the SDK's own retries): every entry was refused.
        case t: ThrottledException =>
          val code = t.getCause match {
            case e: AwsServiceException if e.awsErrorDetails() != null => e.awsErrorDetails().errorCode()
            case _ => "ProvisionedThroughputExceededException"
          }
          return entries.map(_ => PutFailure(code, t.getMessage))
      }
    val results = response.records().asScala.toIndexedSeq
    require(results.size == entries.size,
      s"PutRecords to stream '$stream' answered for ${results.size} of ${entries.size} records")
    results.map { r =>
      Option(r.errorCode()) match {
        case Some(code) => PutFailure(code, Option(r.errorMessage()).getOrElse(""))
        case None => PutStored(r.shardId())
      }
    }
  }

  private def call[T](operation: String, target: String, stream: Option[String])(body: => T): T =
    SdkCalls(operation, target, stream.map(connection.streamShown), connection)(body)

  private def shown(stream: String): String = s"stream '${connection.streamShown(stream)}'"

  /** `builder` naming `stream` by its ARN when the user gave one, else by its name. */
  private def naming[B](builder: B, stream: String)(byName: (B, String) => B, byArn: (B, String) => B): B =
    connection.streamArn(stream).fold(byName(builder, stream))(byArn(builder, _))
}
