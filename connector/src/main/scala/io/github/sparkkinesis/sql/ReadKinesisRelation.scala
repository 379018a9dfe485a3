// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sql

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.logical.{LeafNode, LogicalPlan}
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import io.github.sparkkinesis.{KinesisSourceProvider, KinesisTable}
import io.github.sparkkinesis.options.{KinesisSourceOptions, SecretsInPlans}

/**
 * What `read_kinesis(...)` stands for until the analyzer knows whether the query reads it as a
 * stream (`FROM STREAM read_kinesis(...)`) or as a batch: Spark builds a table function's plan
 * from its arguments alone, and marks STREAM on a node around it. [[ResolveReadKinesis]]
 * replaces it by the batch or streaming relation of `format("kinesis")`.
 */
private[sparkkinesis] final case class ReadKinesisRelation(options: Map[String, String]) extends LeafNode {
  override def output: Seq[Attribute] = Nil

  override lazy val resolved: Boolean = false

  /** The table, its options checked as a DataFrame read checks them. */
  def table: KinesisTable = {
    val parsed = KinesisSourceOptions.parse(options, KinesisSourceProvider.sessionConf())
    SecretsInPlans.mask(options.keys)
    SecretsInPlans.maskLiterals(options.keys)
    KinesisTable.forRead(parsed)
  }

  def caseInsensitiveOptions: CaseInsensitiveStringMap = new CaseInsensitiveStringMap(options.asJava)

  def batch: LogicalPlan = DataSourceV2Relation.create(table, None, None, caseInsensitiveOptions)

  // The options may hold secrets: plans print their nodes.
  override def simpleString(maxFields: Int): String =
    s"${ReadKinesis.Name}(${options.keys.toSeq.sorted.mkString(", ")})"
}
