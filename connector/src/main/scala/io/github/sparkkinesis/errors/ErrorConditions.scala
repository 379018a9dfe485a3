// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.errors

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.ObjectMapper

/** The connector's error conditions, read once from `error/kinesis-error-conditions.json`. */
private[sparkkinesis] object ErrorConditions {
  private final case class Condition(template: String, sqlState: String)

  private lazy val conditions: Map[String, Condition] = {
    val in = getClass.getClassLoader.getResourceAsStream("error/kinesis-error-conditions.json")
    require(in != null, "error/kinesis-error-conditions.json is missing from the connector jar")
    try {
      new ObjectMapper().readTree(in).properties().asScala.map { entry =>
        val node = entry.getValue
        val template = node.get("message").elements().asScala.map(_.asText).mkString("\n")
        entry.getKey -> Condition(template, node.get("sqlState").asText)
      }.toMap
    } finally in.close()
  }

  def format(condition: String, parameters: Map[String, String]): String = {
    val text = parameters.foldLeft(template(condition)) { case (acc, (k, v)) => acc.replace(s"<$k>", v) }
    s"[$condition] $text"
  }

  /** The condition's message with its `<parameter>` placeholders. */
  def template(condition: String): String =
    conditions.getOrElse(condition, throw new IllegalStateException(s"Unknown error condition $condition")).template

  def sqlState(condition: String): String = conditions.get(condition).map(_.sqlState).orNull

  def names: Set[String] = conditions.keySet
}
