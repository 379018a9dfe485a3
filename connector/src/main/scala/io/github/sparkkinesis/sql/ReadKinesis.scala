// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sql

import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionInfo, NamedArgumentExpression}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

import io.github.sparkkinesis.errors.KinesisErrors

/**
 * `read_kinesis(streamName => 'orders', region => 'us-east-1', ...)`: each named argument is
 * an option of `format("kinesis")`, under the names the reader takes (this connector's, and
 * Databricks' and the other connectors' aliases). The arguments are checked here; the options
 * themselves when the relation is resolved, by the same code as a DataFrame read, so a bad
 * value fails with the same message naming the option.
 */
private[sparkkinesis] object ReadKinesis {
  val Name = "read_kinesis"

  private val Usage =
    s"$Name(streamName => 'orders', region => 'us-east-1', initialPosition => 'earliest', ...): the records " +
      "of Kinesis streams, one row per record; each named argument is an option of format(\"kinesis\"). " +
      s"SELECT ... FROM STREAM $Name(...) reads as a stream (Spark 4.2 and later); without STREAM, the records " +
      "the streams hold now, as a batch."

  val description: (FunctionIdentifier, ExpressionInfo, Seq[Expression] => LogicalPlan) =
    (FunctionIdentifier(Name),
      new ExpressionInfo(classOf[ReadKinesisRelation].getName, null, Name, Usage, "", "", "",
        "", "", "", ""), arguments => ReadKinesisRelation(options(arguments)))

  /** The options the arguments name; fails, naming the argument, on any that is not a named constant. */
  def options(arguments: Seq[Expression]): Map[String, String] = {
    val named = arguments.zipWithIndex.map {
      case (NamedArgumentExpression(name, value), _) => name -> constant(name, value)
      case (argument, index) =>
        throw KinesisErrors.sqlArgumentInvalid(Name,
          s"it takes named arguments only; argument ${index + 1} (${argument.sql}) has no name")
    }
    named.groupBy(_._1.toLowerCase(java.util.Locale.ROOT)).values.find(_.size > 1).foreach { repeated =>
      throw KinesisErrors.sqlArgumentInvalid(Name, s"argument ${repeated.head._1} is given ${repeated.size} times")
    }
    if (named.isEmpty)
      throw KinesisErrors.sqlArgumentInvalid(Name, "it needs at least streamName (or streamARN)")
    named.toMap
  }

  private def constant(name: String, value: Expression): String = {
    if (!value.foldable)
      throw KinesisErrors.sqlArgumentInvalid(Name,
        s"argument $name must be a constant (a string, number or boolean literal), not ${value.sql}")
    Option(value.eval()).map(_.toString).getOrElse(
      throw KinesisErrors.sqlArgumentInvalid(Name, s"argument $name is NULL; give it a value or leave it out"))
  }
}
