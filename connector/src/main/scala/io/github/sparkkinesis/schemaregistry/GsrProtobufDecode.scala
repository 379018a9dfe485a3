// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.schemaregistry

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.types.StructType

import io.github.sparkkinesis.client.ConnectionConfig

/**
 * `from_gsr_protobuf`: a Glue Schema Registry Protobuf record (binary) as a row of the reader
 * message (`messageName` of the `.proto` text `readerSchema`), fixed when the query was
 * analyzed. With `permissive`, the value is `struct<value, error>` ([[GsrDecodeExpression]]).
 */
case class GsrProtobufDecode(
    child: Expression,
    connection: ConnectionConfig,
    readerSchema: String,
    messageName: String,
    permissive: Boolean)
  extends GsrDecodeExpression {

  @transient private lazy val file = ProtoParser.parse(readerSchema)
  @transient private lazy val message = file.message(Some(messageName))
  @transient override protected lazy val valueType: StructType = ProtobufTypes.structOf(file, message)
  @transient private lazy val decoder = new GsrProtobufDecoder(connection, file, message)

  override def prettyName: String = "from_gsr_protobuf"

  override protected def decode(record: Array[Byte]): Any = decoder.decode(record)

  override protected def withNewChildInternal(newChild: Expression): GsrProtobufDecode = copy(child = newChild)

  // The connection is shown by its toString, which never includes a secret.
  override def toString: String = s"from_gsr_protobuf($child, $messageName)"
}

object GsrProtobufDecode {
  /**
   * The expression for `options`, its reader message resolved now: `messageName` (default: the
   * first message of the file) of `schemaDefinition` (`.proto` text), else of the schema version
   * the options name ([[RegistryOptions.namedVersion]]).
   */
  def apply(child: Expression, options: Map[String, String]): GsrProtobufDecode = {
    val opts = new RegistryOptions.Given(options)
    val permissive = opts.permissive
    val definition = opts.readerDefinition("PROTOBUF", "from_gsr_protobuf")
    val (file, message) = GsrProtobufDecode.message(opts, definition)
    ProtobufTypes.structOf(file, message) // A message with no Spark type fails here, at analysis.
    new GsrProtobufDecode(child, opts.connection, definition, message.fullName, permissive)
  }

  /** The `.proto` text parsed, and the message the options name in it; a clear error naming the option if not. */
  private[schemaregistry] def message(opts: RegistryOptions.Given, definition: String): (ProtoFile, ProtoMessage) = {
    val file =
      try ProtoParser.parse(definition)
      catch {
        case e: ProtoSchemaException =>
          throw new IllegalArgumentException(s"The schema's .proto text cannot be read: ${e.getMessage}", e)
      }
    val message =
      try file.message(opts.get(RegistryOptions.MessageName))
      catch {
        case e: IllegalArgumentException =>
          throw RegistryOptions.invalid(RegistryOptions.MessageName, opts.get(RegistryOptions.MessageName).orNull,
            s"a message of the schema (${file.declared.mkString(", ")})")
      }
    (file, message)
  }
}
