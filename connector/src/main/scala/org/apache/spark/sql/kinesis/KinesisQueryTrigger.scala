// SPDX-License-Identifier: Apache-2.0
package org.apache.spark.sql.kinesis

import java.util.UUID

import scala.util.Try

import org.apache.spark.SparkContext
import org.apache.spark.sql.execution.streaming.ProcessingTimeTrigger

/**
 * The trigger of the streaming query whose stream thread calls. Spark does not tell a source its
 * query's trigger; it keeps every running query of the application in its shared state, by the
 * id it sets as a local property of the query's thread (see [[KinesisQueryId]]).
 */
object KinesisQueryTrigger {

  /**
   * The interval of the calling query's processing-time trigger, 0 for the default trigger (as
   * fast as possible); None for any other trigger, or when called from elsewhere than a running
   * query's thread.
   */
  def processingIntervalMs(sparkContext: SparkContext): Option[Long] =
    for {
      id <- Option(sparkContext.getLocalProperty(KinesisQueryId.QueryIdKey))
      uuid <- Try(UUID.fromString(id)).toOption
      shared <- ActiveSharedState.get
      query <- Option(shared.activeStreamingQueries.get(uuid))
      intervalMs <- query.trigger match {
        case ProcessingTimeTrigger(ms) => Some(ms)
        case _ => None
      }
    } yield intervalMs
}
