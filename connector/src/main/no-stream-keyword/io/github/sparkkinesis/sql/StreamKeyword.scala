// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sql

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

/**
 * The parsers of Spark 3.5, 4.0 and 4.1 have no STREAM for a table function: `read_kinesis`
 * reads as a batch there (a streaming read in SQL goes through a view of
 * `spark.readStream.format("kinesis")`).
 */
private[sparkkinesis] object StreamKeyword {
  val streamingRead: PartialFunction[LogicalPlan, LogicalPlan] = PartialFunction.empty
}
