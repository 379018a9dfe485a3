// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.errors

import org.apache.spark.SparkThrowable

/** Spark 4.x: a `SparkThrowable` names its error condition with `getCondition`. */
private[errors] trait SparkThrowableShim extends SparkThrowable {
  def condition: String

  override def getCondition: String = condition
}

/** The error condition of any Spark error, ours or Spark's own, on every Spark line. */
object SparkThrowables {
  def condition(e: SparkThrowable): String = e.getCondition
}
