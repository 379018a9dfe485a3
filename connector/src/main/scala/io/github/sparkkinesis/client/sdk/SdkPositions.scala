// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.sdk

import java.time.Instant

import software.amazon.awssdk.services.kinesis.model.{GetShardIteratorRequest, ShardIteratorType, StartingPosition}

import io.github.sparkkinesis.offsets.ShardPosition

/**
 * The one mapping of a [[ShardPosition]] to where Kinesis starts reading, for GetShardIterator
 * (polling) and SubscribeToShard (enhanced fan-out) alike, so both read paths start from the
 * same record for the same position.
 */
object SdkPositions {

  /** Where to start: the iterator type, and the sequence number or time it needs. */
  final case class Start(iteratorType: ShardIteratorType, sequenceNumber: Option[String], timestamp: Option[Instant])

  /** `position` as Kinesis takes it; a `ShardEnd` has no start (nothing follows it). */
  def start(position: ShardPosition): Start = position match {
    case ShardPosition.TrimHorizon => Start(ShardIteratorType.TRIM_HORIZON, None, None)
    case ShardPosition.AtTimestamp(ms) => Start(ShardIteratorType.AT_TIMESTAMP, None, Some(Instant.ofEpochMilli(ms)))
    case ShardPosition.AtSequence(seq) => Start(ShardIteratorType.AT_SEQUENCE_NUMBER, Some(seq), None)
    case ShardPosition.AfterSequence(seq, None) => Start(ShardIteratorType.AFTER_SEQUENCE_NUMBER, Some(seq), None)
    // Inside a KPL aggregate: read it again; the reader skips the user records already read.
    case ShardPosition.AfterSequence(seq, Some(_)) => Start(ShardIteratorType.AT_SEQUENCE_NUMBER, Some(seq), None)
    case end: ShardPosition.ShardEnd =>
      throw new IllegalArgumentException(s"nothing can be read past the end of a closed shard ($end)")
  }

  /** GetShardIterator for `position` of `shardId`; the caller names the stream (by name or ARN). */
  def iteratorRequest(shardId: String, position: ShardPosition): GetShardIteratorRequest.Builder = {
    val s = start(position)
    val request = GetShardIteratorRequest.builder().shardId(shardId).shardIteratorType(s.iteratorType)
    s.sequenceNumber.foreach(request.startingSequenceNumber)
    s.timestamp.foreach(request.timestamp)
    request
  }

  def startingPosition(position: ShardPosition): StartingPosition = {
    val s = start(position)
    val builder = StartingPosition.builder().`type`(s.iteratorType)
    s.sequenceNumber.foreach(builder.sequenceNumber)
    s.timestamp.foreach(builder.timestamp)
    builder.build()
  }
}
