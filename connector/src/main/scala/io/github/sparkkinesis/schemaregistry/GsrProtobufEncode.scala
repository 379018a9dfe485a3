// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.schemaregistry

import java.util.UUID

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.expressions.{Expression, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.types.{BinaryType, DataType, StructType}

import io.github.sparkkinesis.client.sdk.SchemaRegistryException

/**
 * `to_gsr_protobuf`: a struct as a Glue Schema Registry Protobuf record of the message
 * `messageName` of the schema version fixed when the query was analyzed (`versionId`,
 * `writerSchema`, `.proto` text), zlib-compressed when `compress`. A column that does not fit
 * the message fails at analysis ([[ProtobufWriter]]).
 */
case class GsrProtobufEncode(child: Expression, versionId: String, writerSchema: String, messageName: String,
    compress: Boolean)
  extends UnaryExpression with CodegenFallback {

  @transient private lazy val file = ProtoParser.parse(writerSchema)
  @transient private lazy val message = file.message(Some(messageName))
  @transient private lazy val index = file.indexed.indexOf(message.fullName)
  @transient private lazy val writer = new ProtobufWriter(file, message, child.dataType.asInstanceOf[StructType])
  @transient private lazy val id = UUID.fromString(versionId)

  override def checkInputDataTypes(): TypeCheckResult = child.dataType match {
    case column: StructType =>
      try { new ProtobufWriter(file, message, column); TypeCheckResult.TypeCheckSuccess }
      catch {
        case e: ProtoSchemaException => TypeCheckResult.TypeCheckFailure(
            s"to_gsr_protobuf: the column does not fit message ${message.fullName}: ${e.getMessage}")
      }
    case other => TypeCheckResult.TypeCheckFailure(
        s"to_gsr_protobuf writes a struct column (struct(*) for a row); ${child.sql} is ${other.simpleString}")
  }

  override def dataType: DataType = BinaryType
  override def nullable: Boolean = child.nullable
  override def prettyName: String = "to_gsr_protobuf"

  override protected def nullSafeEval(input: Any): Any = {
    val message =
      try writer.write(input.asInstanceOf[InternalRow])
      catch {
        case e: ProtobufWireException => throw new SchemaRegistryException(s"to_gsr_protobuf: ${e.getMessage}", e)
      }
    GsrWireFormat.write(id, GsrProtobufPayload.write(index, message), compress)
  }

  override protected def withNewChildInternal(newChild: Expression): GsrProtobufEncode = copy(child = newChild)
}

object GsrProtobufEncode {
  /**
   * The expression for `options`: `messageName` (default: the file's first message) of the
   * schema version the options name, or of the version with `schemaDefinition` (`.proto` text),
   * registered first with `autoRegistration` ([[WriterVersion]]).
   */
  def apply(child: Expression, options: Map[String, String]): GsrProtobufEncode = {
    val opts = new RegistryOptions.Given(options)
    val compress = opts.oneOf(RegistryOptions.Compression, RegistryOptions.Compressions, "none") == "zlib"
    // A definition this connector cannot read fails before anything is registered.
    opts.get(RegistryOptions.SchemaDefinition).foreach(GsrProtobufDecode.message(opts, _))
    val (id, definition) = WriterVersion(opts, "PROTOBUF", "to_gsr_protobuf")
    val (_, message) = GsrProtobufDecode.message(opts, definition)
    new GsrProtobufEncode(child, id.toString, definition, message.fullName, compress)
  }
}
