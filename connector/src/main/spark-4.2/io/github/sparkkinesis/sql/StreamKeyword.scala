// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sql

import org.apache.spark.sql.catalyst.analysis.NamedStreamingRelation
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.streaming.StreamingRelationV2
import org.apache.spark.sql.catalyst.types.DataTypeUtils

import io.github.sparkkinesis.KinesisSourceProvider

/**
 * `FROM STREAM read_kinesis(...)`: Spark 4.2's parser marks a table function read with STREAM
 * by a NamedStreamingRelation around it (which also names the source in the checkpoint); the
 * read under it becomes the streaming relation `spark.readStream.format("kinesis")` makes.
 */
private[sparkkinesis] object StreamKeyword {
  val streamingRead: PartialFunction[LogicalPlan, LogicalPlan] = {
    case named @ NamedStreamingRelation(read: ReadKinesisRelation, sourceName) =>
      val table = read.table
      named.copy(child = StreamingRelationV2(Some(new KinesisSourceProvider), "kinesis", table,
        read.caseInsensitiveOptions, DataTypeUtils.toAttributes(table.schema()), None, None, None, sourceName))
  }
}
