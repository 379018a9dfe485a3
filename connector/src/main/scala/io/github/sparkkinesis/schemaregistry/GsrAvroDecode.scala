// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.schemaregistry

import org.apache.avro.Schema
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.types.DataType

import io.github.sparkkinesis.client.ConnectionConfig

/**
 * `from_gsr_avro`: a Glue Schema Registry Avro record (binary) as a value of the reader schema,
 * fixed when the query was analyzed (`readerSchema`, an Avro schema in JSON). With
 * `permissive`, the value is `struct<value, error>` ([[GsrDecodeExpression]]).
 */
case class GsrAvroDecode(child: Expression, connection: ConnectionConfig, readerSchema: String, permissive: Boolean)
  extends GsrDecodeExpression {

  @transient private lazy val reader: Schema = new Schema.Parser().parse(readerSchema)
  @transient override protected lazy val valueType: DataType = AvroTypes.sqlType(reader).dataType
  @transient private lazy val decoder = new GsrAvroDecoder(connection, reader)

  override def prettyName: String = "from_gsr_avro"

  override protected def decode(record: Array[Byte]): Any = decoder.decode(record)

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
    val permissive = opts.permissive
    val connection = opts.connection
    val definition = opts.readerDefinition("AVRO", "from_gsr_avro")
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
