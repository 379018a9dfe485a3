// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.schemaregistry

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.expressions.UnaryExpression
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.types.{BinaryType, DataType, StringType, StructField, StructType}
import org.apache.spark.unsafe.types.UTF8String

/**
 * What every `from_gsr_*` expression shares: it reads a binary column, and with `permissive`
 * its value is `struct<value, error>`, so that a record that cannot be read gives a null
 * `value` and its reason in `error` instead of failing the query. A registry that cannot be
 * reached fails the query in either mode.
 */
trait GsrDecodeExpression extends UnaryExpression with CodegenFallback {
  def permissive: Boolean

  /** The Spark type of a decoded record. */
  protected def valueType: DataType

  /** The record as a value of [[valueType]]; [[RecordDecodeException]] when it cannot be. */
  protected def decode(record: Array[Byte]): Any

  override def checkInputDataTypes(): TypeCheckResult =
    if (child.dataType == BinaryType) TypeCheckResult.TypeCheckSuccess
    else TypeCheckResult.TypeCheckFailure(
      s"$prettyName reads a binary column (such as the Kinesis source's data); ${child.sql} is ${child.dataType.simpleString}")

  override def dataType: DataType =
    if (permissive) StructType(Seq(StructField("value", valueType), StructField("error", StringType)))
    else valueType

  override def nullable: Boolean = true

  override protected def nullSafeEval(input: Any): Any = {
    val record = input.asInstanceOf[Array[Byte]]
    if (!permissive) decode(record)
    else
      try InternalRow(decode(record), null)
      catch { case e: RecordDecodeException => InternalRow(null, UTF8String.fromString(e.getMessage)) }
  }
}
