// SPDX-License-Identifier: Apache-2.0
package org.apache.spark.sql.kinesis

import org.apache.spark.sql.connector.write.WriteBuilder
import org.apache.spark.sql.internal.connector.SupportsStreamingUpdateAsAppend

/**
 * Spark's internal mark of a streaming write that takes the update output mode as append (each
 * batch's new or changed rows become new records), as its Kafka sink does: a real-time query
 * runs only in update mode. Here, in the one bridge into Spark internals, for the sink's
 * WriteBuilder to extend.
 */
trait KinesisUpdateAsAppend extends WriteBuilder with SupportsStreamingUpdateAsAppend
