// SPDX-License-Identifier: Apache-2.0
package org.apache.spark.sql.kinesis

import org.apache.spark.TaskContext

/**
 * The id of the streaming query a task runs for: the one stored in the query's checkpoint, the
 * same after a restart (not the run id). Spark sets it as a local property of every job of a
 * streaming query (`StreamExecution.QUERY_ID_KEY`, whose package differs between Spark lines);
 * here, in the bridge into Spark internals, so the name is known in one place.
 */
object KinesisQueryId {
  private[kinesis] val QueryIdKey = "sql.streaming.queryId"

  /** The query's id, when the calling thread runs a task of a streaming query. */
  def ofCurrentTask: Option[String] =
    Option(TaskContext.get()).flatMap(t => Option(t.getLocalProperty(QueryIdKey)))
}
