// SPDX-License-Identifier: Apache-2.0
package org.apache.spark.sql.kinesis

import com.codahale.metrics.MetricRegistry

import org.apache.spark.{SparkContext, SparkEnv}
import org.apache.spark.metrics.source.Source

/**
 * The connector's source in Spark's metrics system (JMX, the PrometheusServlet, the other
 * sinks): `kinesis`, registered once with the driver's metrics system when a query first asks
 * for it. Each query adds its gauges under its own name and removes them when it stops; the
 * source itself stays, empty, as long as the metrics system. One source for every query,
 * because Spark removes a source's metrics by name prefix: a source per query would take the
 * metrics of `q10` along with those of `q1`. Spark's `Source` is private to Spark, hence here.
 */
object KinesisMetricsSource {
  val Name = "kinesis"

  private final class ConnectorSource extends Source {
    override val sourceName: String = Name
    override val metricRegistry: MetricRegistry = new MetricRegistry
  }

  // The metrics system the source is registered with: a new SparkContext has a new one.
  private var registeredWith: Option[(AnyRef, ConnectorSource)] = None

  /** The registry the driver's metrics system publishes, or None without a running SparkEnv. */
  def registry(): Option[MetricRegistry] = synchronized {
    Option(SparkEnv.get).map { env =>
      val system = env.metricsSystem
      registeredWith match {
        case Some((registeredSystem, source)) if registeredSystem eq system => source.metricRegistry
        case _ =>
          val source = new ConnectorSource
          system.registerSource(source)
          registeredWith = Some((system, source))
          source.metricRegistry
      }
    }
  }

  /** The query the calling driver thread runs a trigger of: its id, as Spark sets it for the query's jobs. */
  def queryIdOfThread(sc: SparkContext): Option[String] = Option(sc.getLocalProperty(KinesisQueryId.QueryIdKey))
}
