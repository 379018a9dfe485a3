// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.schemaregistry

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.StructType

import io.github.sparkkinesis.client.ConnectionConfig

/**
 * `from_gsr_json`: a Glue Schema Registry JSON Schema record (binary) as a row of the reader
 * schema's type ([[JsonSchemaTypes]]), fixed when the query was analyzed (`readerSchema`, the
 * JSON Schema's text). Timestamps without an offset are in `timeZone`, the session's at
 * analysis. With `permissive`, the value is
 * `struct<value, error>` ([[GsrDecodeExpression]]).
 */
case class GsrJsonDecode(
    child: Expression,
    connection: ConnectionConfig,
    readerSchema: String,
    timeZone: String,
    permissive: Boolean)
  extends GsrDecodeExpression {

  @transient override protected lazy val valueType: StructType = JsonSchemaTypes.rootType(readerSchema)
  @transient private lazy val decoder = new GsrJsonDecoder(connection, valueType, timeZone)

  override def prettyName: String = "from_gsr_json"

  override protected def decode(record: Array[Byte]): Any = decoder.decode(record)

  override protected def withNewChildInternal(newChild: Expression): GsrJsonDecode = copy(child = newChild)

  // The connection is shown by its toString, which never includes a secret.
  override def toString: String = s"from_gsr_json($child, ${valueType.simpleString})"
}

object GsrJsonDecode {
  /**
   * The expression for `options`, its reader schema resolved now: `schemaDefinition` (a JSON
   * Schema), else the schema version the options name ([[RegistryOptions.namedVersion]]).
   */
  def apply(child: Expression, options: Map[String, String]): GsrJsonDecode = {
    val opts = new RegistryOptions.Given(options)
    val permissive = opts.permissive
    val definition = opts.readerDefinition("JSON", "from_gsr_json")
    JsonSchemaTypes.rootType(definition) // A schema outside the supported subset fails here, at analysis.
    new GsrJsonDecode(child, opts.connection, definition, SQLConf.get.sessionLocalTimeZone, permissive)
  }
}
