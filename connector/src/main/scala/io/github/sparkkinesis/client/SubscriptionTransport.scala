// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client

import org.reactivestreams.Subscriber

import io.github.sparkkinesis.kpl.RangeCheck
import io.github.sparkkinesis.offsets.ShardPosition

/**
 * One SubscribeToShardEvent. `continuationSequenceNumber` is where the next subscription
 * resumes (AFTER_SEQUENCE_NUMBER); it is empty only in the shard's final event, sent when a
 * closed shard has been read to its end (then `childShards` names the shards that follow).
 */
final case class ShardEvent(
    records: Seq[KinesisRecord],
    continuationSequenceNumber: Option[String],
    millisBehindLatest: Long,
    childShards: Seq[String] = Nil,
    kpl: KplCounts = KplCounts.Zero) {
  def isShardEnd: Boolean = continuationSequenceNumber.isEmpty
  lazy val bytes: Long = KinesisRecord.bytesOf(records)
}

/** Stops a subscription that may not have started yet. */
trait SubscriptionHandle {
  def cancel(): Unit
}

/**
 * Makes SubscribeToShard calls. The EFO subscription cursor reaches Kinesis only through this trait,
 * so unit tests put a fake publisher behind it.
 */
trait SubscriptionTransport {
  /**
   * Subscribes to `shardId` for `consumerArn` from `start` (not a ShardEnd) and delivers the
   * events (their KPL aggregates split, checked against the shard's `rangeCheck`) to
   * `subscriber` as reactive streams do: onSubscribe first, then at most as many
   * onNext as were requested, then exactly one of onComplete (the subscription's life ended)
   * or onError, also when the call fails before any event (then after an onSubscribe).
   */
  def subscribe(consumerArn: String, shardId: String, start: ShardPosition, rangeCheck: Option[RangeCheck],
      subscriber: Subscriber[ShardEvent]): SubscriptionHandle

  /**
   * A failure of a subscription as it may be shown in an error or a log: with every credential
   * of the connection that it repeats masked (a refused signature quotes the signed request).
   * Callers classify the failure itself, and show only this.
   */
  def shown(failure: Throwable): Throwable
}
