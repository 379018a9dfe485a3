// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sql

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule

/** Replaces each `read_kinesis(...)` by a streaming read under STREAM, a batch read elsewhere. */
private[sparkkinesis] object ResolveReadKinesis extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = plan.resolveOperatorsDown {
    StreamKeyword.streamingRead.orElse { case read: ReadKinesisRelation => read.batch }
  }
}
