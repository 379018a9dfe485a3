// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.schemaregistry

import java.io.ByteArrayOutputStream
import java.util.UUID

import org.apache.avro.Schema
import org.apache.avro.generic.GenericDatumWriter
import org.apache.avro.io.{BinaryEncoder, EncoderFactory}
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.expressions.{Expression, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.types.{BinaryType, DataType}

import io.github.sparkkinesis.client.sdk.SchemaRegistryException

/**
 * `to_gsr_avro`: a value as a Glue Schema Registry Avro record of the schema version fixed when
 * the query was analyzed (`versionId`, `writerSchema`), zlib-compressed when `compress`.
 */
case class GsrAvroEncode(child: Expression, versionId: String, writerSchema: String, compress: Boolean)
  extends UnaryExpression with CodegenFallback {

  @transient private lazy val schema: Schema = new Schema.Parser().parse(writerSchema)
  @transient private lazy val convert = CatalystToAvro.converter(schema, child.dataType)
  @transient private lazy val writer = new GenericDatumWriter[AnyRef](schema)
  @transient private lazy val id = UUID.fromString(versionId)
  @transient private lazy val out = new ByteArrayOutputStream(256)
  @transient private var encoder: BinaryEncoder = _

  // A column that does not fit the schema fails at analysis, naming the field.
  override def checkInputDataTypes(): TypeCheckResult =
    try { CatalystToAvro.converter(schema, child.dataType); TypeCheckResult.TypeCheckSuccess }
    catch { case e: SchemaRegistryException => TypeCheckResult.TypeCheckFailure(e.getMessage) }

  override def dataType: DataType = BinaryType
  override def nullable: Boolean = child.nullable
  override def prettyName: String = "to_gsr_avro"

  override protected def nullSafeEval(input: Any): Any = {
    out.reset()
    encoder = EncoderFactory.get().binaryEncoder(out, encoder)
    writer.write(convert(input), encoder)
    encoder.flush()
    GsrWireFormat.write(id, out.toByteArray, compress)
  }

  override protected def withNewChildInternal(newChild: Expression): GsrAvroEncode = copy(child = newChild)
}

object GsrAvroEncode {
  /**
   * The expression for `options`: the schema version the options name, or with
   * `schemaDefinition`, the version of `schemaName` with that definition, registered first when
   * `autoRegistration` is true (the schema created first if it does not exist).
   */
  def apply(child: Expression, options: Map[String, String]): GsrAvroEncode = {
    val opts = new RegistryOptions.Given(options)
    val compress = opts.oneOf(RegistryOptions.Compression, RegistryOptions.Compressions, "none") == "zlib"
    opts.get(RegistryOptions.SchemaDefinition).foreach { definition =>
      try new Schema.Parser().parse(definition)
      catch {
        case e: Exception => throw RegistryOptions.invalid(RegistryOptions.SchemaDefinition, definition.take(200),
            s"an Avro schema in JSON (${e.getMessage})")
      }
    }
    val (id, definition) = WriterVersion(opts, "AVRO", "to_gsr_avro")
    new GsrAvroEncode(child, id.toString, new Schema.Parser().parse(definition).toString, compress)
  }
}
