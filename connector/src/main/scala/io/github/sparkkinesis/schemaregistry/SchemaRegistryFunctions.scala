// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.schemaregistry

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{Column, SparkSessionExtensions}
import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionInfo}
import org.apache.spark.sql.kinesis.ExpressionColumns
import org.apache.spark.sql.types.{MapType, StringType}

import io.github.sparkkinesis.options.SecretsInPlans

/**
 * The schema registry functions, from Scala and Java (`from_gsr_avro(col, options)`,
 * `to_gsr_avro(col, options)`, `from_gsr_json`, `to_gsr_json`, `from_gsr_protobuf`, `to_gsr_protobuf`), and for SQL through a session extension ([[inject]]):
 * `from_gsr_avro(data, map('schemaName', ...))`.
 */
object SchemaRegistryFunctions {
  val FromGsrAvro = "from_gsr_avro"
  val ToGsrAvro = "to_gsr_avro"
  val FromGsrJson = "from_gsr_json"
  val ToGsrJson = "to_gsr_json"
  val FromGsrProtobuf = "from_gsr_protobuf"
  val ToGsrProtobuf = "to_gsr_protobuf"

  /** A Glue Schema Registry Avro record column decoded as the schema the options name ([[RegistryOptions]]). */
  def from_gsr_avro(data: Column, options: Map[String, String]): Column =
    ExpressionColumns.column(GsrAvroDecode(ExpressionColumns.expression(data), options))

  def from_gsr_avro(data: Column, options: java.util.Map[String, String]): Column =
    from_gsr_avro(data, options.asScala.toMap)

  /** A column as Glue Schema Registry Avro records of the schema version the options name ([[GsrAvroEncode]]). */
  def to_gsr_avro(data: Column, options: Map[String, String]): Column =
    ExpressionColumns.column(GsrAvroEncode(ExpressionColumns.expression(data), options))

  def to_gsr_avro(data: Column, options: java.util.Map[String, String]): Column =
    to_gsr_avro(data, options.asScala.toMap)

  /** A Glue Schema Registry JSON Schema record column decoded as the schema the options name ([[GsrJsonDecode]]). */
  def from_gsr_json(data: Column, options: Map[String, String]): Column =
    ExpressionColumns.column(GsrJsonDecode(ExpressionColumns.expression(data), options))

  def from_gsr_json(data: Column, options: java.util.Map[String, String]): Column =
    from_gsr_json(data, options.asScala.toMap)

  /** A struct column as Glue Schema Registry JSON Schema records of the schema version the options name ([[GsrJsonEncode]]). */
  def to_gsr_json(data: Column, options: Map[String, String]): Column =
    ExpressionColumns.column(GsrJsonEncode(ExpressionColumns.expression(data), options))

  def to_gsr_json(data: Column, options: java.util.Map[String, String]): Column =
    to_gsr_json(data, options.asScala.toMap)

  /** A Glue Schema Registry Protobuf record column decoded as the message the options name ([[GsrProtobufDecode]]). */
  def from_gsr_protobuf(data: Column, options: Map[String, String]): Column =
    ExpressionColumns.column(GsrProtobufDecode(ExpressionColumns.expression(data), options))

  def from_gsr_protobuf(data: Column, options: java.util.Map[String, String]): Column =
    from_gsr_protobuf(data, options.asScala.toMap)

  /** A struct column as Glue Schema Registry Protobuf records of the message the options name ([[GsrProtobufEncode]]). */
  def to_gsr_protobuf(data: Column, options: Map[String, String]): Column =
    ExpressionColumns.column(GsrProtobufEncode(ExpressionColumns.expression(data), options))

  def to_gsr_protobuf(data: Column, options: java.util.Map[String, String]): Column =
    to_gsr_protobuf(data, options.asScala.toMap)

  /** Adds the SQL functions to sessions built with `extensions`. */
  def inject(extensions: SparkSessionExtensions): Unit = {
    register(extensions, FromGsrAvro, classOf[GsrAvroDecode], GsrAvroDecode(_, _))
    register(extensions, ToGsrAvro, classOf[GsrAvroEncode], GsrAvroEncode(_, _))
    register(extensions, FromGsrJson, classOf[GsrJsonDecode], GsrJsonDecode(_, _))
    register(extensions, ToGsrJson, classOf[GsrJsonEncode], GsrJsonEncode(_, _))
    register(extensions, FromGsrProtobuf, classOf[GsrProtobufDecode], GsrProtobufDecode(_, _))
    register(extensions, ToGsrProtobuf, classOf[GsrProtobufEncode], GsrProtobufEncode(_, _))
  }

  private def register(extensions: SparkSessionExtensions, name: String, expression: Class[_],
      build: (Expression, Map[String, String]) => Expression): Unit =
    extensions.injectFunction((FunctionIdentifier(name), new ExpressionInfo(expression.getName, name),
        (args: Seq[Expression]) => build(dataArgument(args, name), optionsArgument(args, name))))

  private def dataArgument(args: Seq[Expression], function: String): Expression = {
    if (args.isEmpty || args.size > 2)
      throw new IllegalArgumentException(
        s"$function takes the data column and a map of options (map('schemaName', 'name', ...)); got ${args.size} arguments")
    args.head
  }

  /** The options map of a SQL call: a constant map of strings. */
  private def optionsArgument(args: Seq[Expression], function: String): Map[String, String] =
    args.drop(1).headOption match {
      case None => Map.empty
      case Some(options)
          if options.foldable && options.dataType == MapType(StringType, StringType, valueContainsNull = true) ||
            options.foldable && options.dataType == MapType(StringType, StringType, valueContainsNull = false) =>
        val map = options.eval().asInstanceOf[org.apache.spark.sql.catalyst.util.MapData]
        if (map == null) Map.empty
        else {
          val keys = map.keyArray().toSeq[org.apache.spark.unsafe.types.UTF8String](StringType)
          val values = map.valueArray().toSeq[org.apache.spark.unsafe.types.UTF8String](StringType)
          val options = keys.zip(values).map { case (k, v) => k.toString -> Option(v).map(_.toString).orNull }.toMap
          SecretsInPlans.maskLiterals(options.keys)
          options
        }
      case Some(other) =>
        throw new IllegalArgumentException(
          s"The second argument of $function must be a constant map of strings (map('schemaName', 'name', ...)); " +
            s"got ${other.sql} of type ${other.dataType.simpleString}")
    }
}
