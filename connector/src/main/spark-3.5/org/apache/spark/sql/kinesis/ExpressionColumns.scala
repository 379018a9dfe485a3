// SPDX-License-Identifier: Apache-2.0
package org.apache.spark.sql.kinesis

import org.apache.spark.sql.Column
import org.apache.spark.sql.catalyst.expressions.Expression

/** Columns of the connector's own expressions (the schema registry functions), and back. */
object ExpressionColumns {
  def column(expression: Expression): Column = new Column(expression)
  def expression(column: Column): Expression = column.expr
}
