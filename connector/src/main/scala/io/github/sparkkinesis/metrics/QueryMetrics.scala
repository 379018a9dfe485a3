// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.metrics

import org.apache.spark.SparkContext
import org.apache.spark.sql.kinesis.KinesisMetricsSource

/** Where a query's gauges go in Spark's metrics system. */
object QueryMetrics {
  /**
   * The gauges of the query the calling driver thread runs a trigger of, named by the query's
   * id: the one its checkpoint keeps, so the same after a restart, and unique among the queries
   * that run. None outside a streaming query or without a metrics system.
   */
  def gauges(sc: SparkContext, figures: () => ReadFigures): Option[QueryGauges] =
    for {
      id <- KinesisMetricsSource.queryIdOfThread(sc)
      registry <- KinesisMetricsSource.registry()
    } yield new QueryGauges(registry, id, figures)
}
