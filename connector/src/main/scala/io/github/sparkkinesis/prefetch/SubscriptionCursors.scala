// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import org.apache.spark.internal.Logging

import io.github.sparkkinesis.client.{ConnectionConfig, KinesisApi}
import io.github.sparkkinesis.client.sdk.KinesisClients
import io.github.sparkkinesis.efo.{EfoMetrics, SubscriptionCursor}
import io.github.sparkkinesis.errors.KinesisError
import io.github.sparkkinesis.kpl.RangeCheck
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.polling.TrimHorizonCheck

/**
 * The enhanced fan-out cursor a query's executor reads a shard with, whichever mode plans it
 * (prefetch rounds or real-time tasks): over the connection's clients, and checking its start
 * against retention first ([[TrimHorizonCheck]]), so records deleted before they were read fail
 * the read or are counted as `failOnDataLoss` says, as polling's cursor does.
 */
object SubscriptionCursors extends Logging {
  def forQuery(connection: ConnectionConfig, shard: ShardKey, consumerArn: String, start: ShardPosition,
      failOnDataLoss: Boolean, metrics: EfoMetrics, rangeCheck: Option[RangeCheck]): SubscriptionCursor =
    new SubscriptionCursor(KinesisClients.transport(connection), shard, consumerArn, start, where = connection.where,
      metrics = metrics, rangeCheck = rangeCheck,
      startCheck = startCheck(KinesisClients.api(connection), shard, failOnDataLoss))

  /**
   * The check reads the shard's oldest record (GetShardIterator, GetRecords), which enhanced
   * fan-out needs for nothing else: its documented policies grant them as optional. Without
   * them the check is skipped, with a warning, rather than failing the query.
   */
  def startCheck(api: KinesisApi, shard: ShardKey, failOnDataLoss: Boolean): ShardPosition => Option[ShardPosition] = {
    val check = new TrimHorizonCheck(api, shard, failOnDataLoss)
    position =>
      try check.check(position, () => ())
      catch {
        case e: KinesisError if e.getCondition == "KINESIS_ACCESS_DENIED" =>
          logWarning(s"Cannot check whether retention deleted records of shard $shard after $position before " +
            "they were read: it needs the permissions kinesis:GetShardIterator and kinesis:GetRecords")
          None
      }
  }
}
