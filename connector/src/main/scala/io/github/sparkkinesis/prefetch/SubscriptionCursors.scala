// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import io.github.sparkkinesis.client.ConnectionConfig
import io.github.sparkkinesis.client.sdk.KinesisClients
import io.github.sparkkinesis.efo.{EfoMetrics, SubscriptionCursor}
import io.github.sparkkinesis.kpl.RangeCheck
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.polling.TrimHorizonCheck

/**
 * The enhanced fan-out cursor a query's executor reads a shard with, whichever mode plans it
 * (prefetch rounds or real-time tasks): over the connection's clients, and checking its start
 * against retention first ([[TrimHorizonCheck]]), so records deleted before they were read fail
 * the read or are counted as `failOnDataLoss` says, as polling's cursor does.
 */
object SubscriptionCursors {
  def forQuery(connection: ConnectionConfig, shard: ShardKey, consumerArn: String, start: ShardPosition,
      failOnDataLoss: Boolean, metrics: EfoMetrics, rangeCheck: Option[RangeCheck]): SubscriptionCursor =
    new SubscriptionCursor(KinesisClients.transport(connection), shard, consumerArn, start, where = connection.where,
      metrics = metrics, rangeCheck = rangeCheck,
      startCheck = new TrimHorizonCheck(KinesisClients.api(connection), shard, failOnDataLoss).check(_, () => ()))
}
