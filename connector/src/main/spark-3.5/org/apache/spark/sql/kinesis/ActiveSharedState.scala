// SPDX-License-Identifier: Apache-2.0
package org.apache.spark.sql.kinesis

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.internal.SharedState

/** What the sessions of this application share (its running streaming queries among it), through the active session. */
private[kinesis] object ActiveSharedState {
  def get: Option[SharedState] = SparkSession.getActiveSession.map(_.sharedState)
}
