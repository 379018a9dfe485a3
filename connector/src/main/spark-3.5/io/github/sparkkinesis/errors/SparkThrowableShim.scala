// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.errors

import org.apache.spark.SparkThrowable

/**
 * Spark 3.5: a `SparkThrowable` names its error condition with `getErrorClass` (4.x renamed it
 * `getCondition`); the connector's code calls `getCondition` on every line.
 */
private[errors] trait SparkThrowableShim extends SparkThrowable {
  def condition: String

  override def getErrorClass: String = condition

  def getCondition: String = condition
}

/** The error condition of any Spark error, ours or Spark's own, on every Spark line. */
object SparkThrowables {
  def condition(e: SparkThrowable): String = e.getErrorClass
}
