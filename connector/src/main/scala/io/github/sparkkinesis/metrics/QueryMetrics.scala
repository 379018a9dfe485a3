// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.metrics

import java.util.UUID

import scala.util.Try

import org.apache.spark.SparkContext
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.kinesis.KinesisMetricsSource

/** Where a query's gauges go in Spark's metrics system. */
object QueryMetrics {
  /**
   * The gauges of the query the calling driver thread runs a trigger of, named by the query's
   * name, or its id when it has none (both unique among a session's active queries). None
   * outside a streaming query or without a metrics system.
   */
  def gauges(sc: SparkContext, figures: () => ReadFigures): Option[QueryGauges] =
    for {
      id <- KinesisMetricsSource.queryIdOfThread(sc)
      registry <- KinesisMetricsSource.registry()
    } yield new QueryGauges(registry, nameOf(id), figures)

  private def nameOf(id: String): String =
    Try(Option(SparkSession.active.streams.get(UUID.fromString(id))).flatMap(q => Option(q.name))).toOption.flatten
      .getOrElse(id)
}
