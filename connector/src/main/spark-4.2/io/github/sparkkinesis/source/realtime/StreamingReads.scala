// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source.realtime

import org.apache.spark.sql.connector.read.streaming.MicroBatchStream

import io.github.sparkkinesis.options.KinesisSourceOptions

/**
 * The stream a `kinesis` scan hands to Spark. Built against a Spark with real-time mode (4.1
 * and later), it is the stream that can also run real-time; the rest of the connector calls
 * only this, so a build for a Spark without real-time mode replaces this one file.
 */
object StreamingReads {
  def microBatchStream(options: KinesisSourceOptions, checkpointLocation: String): MicroBatchStream =
    new KinesisRealTimeStream(options, checkpointLocation)
}
