// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.schemaregistry

import org.apache.avro.Schema
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.expressions.{Expression, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.types.{BinaryType, DataType, StringType, StructField, StructType}
import org.apache.spark.unsafe.types.UTF8String

import io.github.sparkkinesis.client.ConnectionConfig

/**
 * `from_gsr_avro`: a Glue Schema Registry Avro record (binary) as a value of the reader schema,
 * fixed when the query was analyzed (`readerSchema`, an Avro schema in JSON). With
 * `permissive`, the value is `struct<value, error>`: a record that cannot be read gives a null
 * `value` and its reason in `error`, instead of failing the query. A registry that cannot be
 * reached fails the query in either mode.
 */
case class GsrAvroDecode(child: Expression, connection: ConnectionConfig, readerSchema: String, permissive: Boolean)
  extends UnaryExpression with CodegenFallback {

  @transient private lazy val reader: Schema = new Schema.Parser().parse(readerSchema)
  @transient private lazy val valueType: AvroTypes.SqlType = AvroTypes.sqlType(reader)
  @transient private lazy val decoder = new GsrAvroDecoder(connection, reader)

  override def checkInputDataTypes(): TypeCheckResult =
    if (child.dataType == BinaryType) TypeCheckResult.TypeCheckSuccess
    else TypeCheckResult.TypeCheckFailure(
      s"from_gsr_avro reads a binary column (such as the Kinesis source's data); ${child.sql} is ${child.dataType.simpleString}")

  override def dataType: DataType =
    if (permissive) StructType(Seq(StructField("value", valueType.dataType), StructField("error", StringType)))
    else valueType.dataType

  override def nullable: Boolean = true

  override def prettyName: String = "from_gsr_avro"

  override protected def nullSafeEval(input: Any): Any = {
    val record = input.asInstanceOf[Array[Byte]]
    if (!permissive) decoder.decode(record)
    else
      try InternalRow(decoder.decode(record), null)
      catch { case e: RecordDecodeException => InternalRow(null, UTF8String.fromString(e.getMessage)) }
  }

  override protected def withNewChildInternal(newChild: Expression): GsrAvroDecode = copy(child = newChild)

  // The connection is shown by its toString, which never includes a secret.
  override def toString: String = s"from_gsr_avro($child, ${reader.getFullName})"
}

object GsrAvroDecode {
  /**
   * The expression for `options`, its reader schema resolved now: `schemaDefinition` (an Avro
   * schema in JSON), else the schema version the options name ([[RegistryOptions.namedVersion]]).
   */
  def apply(child: Expression, options: Map[String, String]): GsrAvroDecode = {
    val opts = new RegistryOptions.Given(options)
    val permissive = opts.oneOf(RegistryOptions.Mode, RegistryOptions.Modes, "FAILFAST") == "PERMISSIVE"
    val connection = opts.connection
    val definition = opts.get(RegistryOptions.SchemaDefinition).getOrElse {
      RegistryOptions.namedVersion(opts, "to choose the schema records are read as", "AVRO", "from_gsr_avro")
        .definition
    }
    val parsed =
      try new Schema.Parser().parse(definition)
      catch {
        case e: Exception =>
          throw RegistryOptions.invalid(RegistryOptions.SchemaDefinition, definition.take(200),
            s"an Avro schema in JSON (${e.getMessage})")
      }
    AvroTypes.sqlType(parsed) // A schema with no Spark type fails here, at analysis.
    new GsrAvroDecode(child, connection, parsed.toString, permissive)
  }
}
