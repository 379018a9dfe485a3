// SPDX-License-Identifier: Apache-2.0
package org.apache.spark.sql.kinesis

import org.apache.spark.sql.Column
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.classic.ExpressionUtils

/** Columns of the connector's own expressions (the schema registry functions), and back. */
object ExpressionColumns {
  def column(expression: Expression): Column = ExpressionUtils.column(expression)
  def expression(column: Column): Expression = ExpressionUtils.expression(column)
}
