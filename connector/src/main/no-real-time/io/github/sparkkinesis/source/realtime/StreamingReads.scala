// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source.realtime

import org.apache.spark.sql.connector.read.streaming.MicroBatchStream

import io.github.sparkkinesis.options.KinesisSourceOptions
import io.github.sparkkinesis.source.KinesisMicroBatchStream

/**
 * The stream a `kinesis` scan hands to Spark, for the Spark lines built without real-time
 * mode (3.5 and 4.0 have none; 4.1's differs from 4.2's and has no adapter yet): the
 * micro-batch stream. Spark refuses `trigger(realTime=...)` on it with
 * STREAMING_REAL_TIME_MODE.INPUT_STREAM_NOT_SUPPORTED (4.1).
 */
object StreamingReads {
  def microBatchStream(options: KinesisSourceOptions, checkpointLocation: String): MicroBatchStream =
    new KinesisMicroBatchStream(options, checkpointLocation)
}
