// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.schemaregistry

import java.io.{ByteArrayOutputStream, OutputStreamWriter}
import java.nio.charset.StandardCharsets.UTF_8
import java.util.UUID

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.expressions.{Expression, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.kinesis.SparkJson
import org.apache.spark.sql.types._

import io.github.sparkkinesis.client.sdk.SchemaRegistryException

/**
 * `to_gsr_json`: a struct as a Glue Schema Registry JSON Schema record (UTF-8 JSON, written by
 * Spark's own JSON writer, the one `to_json` uses) of the schema version fixed when the query
 * was analyzed (`versionId`, `writerSchema`), zlib-compressed when `compress`. A column that
 * does not fit the schema fails at analysis; a row whose required property is null fails the
 * query, naming it.
 */
case class GsrJsonEncode(child: Expression, versionId: String, writerSchema: String, timeZone: String,
    compress: Boolean)
  extends UnaryExpression with CodegenFallback {

  @transient private lazy val schemaType: StructType = JsonSchemaTypes.rootType(writerSchema)
  @transient private lazy val id = UUID.fromString(versionId)
  @transient private lazy val out = new ByteArrayOutputStream(256)
  @transient private lazy val generator = new SparkJson.Generator(child.dataType, new OutputStreamWriter(out, UTF_8),
    timeZone)

  override def checkInputDataTypes(): TypeCheckResult = child.dataType match {
    case column: StructType =>
      val unfit = GsrJsonEncode.unfit(schemaType, column, "")
      if (unfit.isEmpty) TypeCheckResult.TypeCheckSuccess
      else TypeCheckResult.TypeCheckFailure(s"to_gsr_json: the column does not fit the schema version's JSON " +
        s"Schema: ${unfit.mkString("; ")}")
    case other => TypeCheckResult.TypeCheckFailure(
        s"to_gsr_json writes a struct column (struct(*) for a row); ${child.sql} is ${other.simpleString}")
  }

  override def dataType: DataType = BinaryType
  override def nullable: Boolean = child.nullable
  override def prettyName: String = "to_gsr_json"

  override protected def nullSafeEval(input: Any): Any = {
    val row = input.asInstanceOf[InternalRow]
    GsrJsonEncode.nullRequired(schemaType, child.dataType.asInstanceOf[StructType], row, "").foreach { property =>
      throw new SchemaRegistryException(
        s"to_gsr_json: a row has no value for $property, which schema version $versionId requires")
    }
    out.reset()
    generator.write(row)
    GsrWireFormat.write(id, out.toByteArray, compress)
  }

  override protected def withNewChildInternal(newChild: Expression): GsrJsonEncode = copy(child = newChild)
}

object GsrJsonEncode {
  /**
   * The expression for `options`: the schema version the options name, or the version with
   * `schemaDefinition` (a JSON Schema), registered first with `autoRegistration` ([[WriterVersion]]).
   */
  def apply(child: Expression, options: Map[String, String]): GsrJsonEncode = {
    val opts = new RegistryOptions.Given(options)
    val compress = opts.oneOf(RegistryOptions.Compression, RegistryOptions.Compressions, "none") == "zlib"
    // A definition outside the supported subset fails before anything is registered.
    opts.get(RegistryOptions.SchemaDefinition).foreach(JsonSchemaTypes.rootType)
    val (id, definition) = WriterVersion(opts, "JSON", "to_gsr_json")
    JsonSchemaTypes.rootType(definition)
    new GsrJsonEncode(child, id.toString, definition, SQLConf.get.sessionLocalTimeZone, compress)
  }

  /** Why values of `column` are not JSON of `schema`: a field it lacks, a required one missing, a type whose JSON differs. */
  private[schemaregistry] def unfit(schema: DataType, column: DataType, at: String): Seq[String] =
    (schema, column) match {
      case (s: StructType, c: StructType) =>
        val extra = c.fields.toSeq.filterNot(f => s.fieldNames.contains(f.name))
          .map(f => s"the schema has no property $at/${f.name}")
        val missing = s.fields.toSeq.filter(f => !f.nullable && !c.fieldNames.contains(f.name))
          .map(f => s"the column has no field for the required property $at/${f.name}")
        val types = c.fields.toSeq.flatMap { f =>
          s.fields.find(_.name == f.name).toSeq.flatMap(p => unfit(p.dataType, f.dataType, s"$at/${f.name}"))
        }
        extra ++ missing ++ types
      case (MapType(_, s, _), c: StructType) => c.fields.toSeq.flatMap(f => unfit(s, f.dataType, s"$at/${f.name}"))
      case (MapType(_, s, _), MapType(StringType, c, _)) => unfit(s, c, s"$at{}")
      case (ArrayType(s, _), ArrayType(c, _)) => unfit(s, c, s"$at[]")
      case (s, c) if jsonKind(s) == jsonKind(c) || jsonKind(s) == "number" && jsonKind(c) == "integer" => Nil
      case (s, c) =>
        Seq(s"${if (at.isEmpty) "the row" else at} is ${c.simpleString} in the column, ${jsonKind(s)} in the schema")
    }

  private def jsonKind(dataType: DataType): String = dataType match {
    case ByteType | ShortType | IntegerType | LongType => "integer"
    case FloatType | DoubleType | _: DecimalType => "number"
    case BooleanType => "boolean"
    case _: StructType | _: MapType => "object"
    case _: ArrayType => "array"
    case _ => "string"
  }

  /** The first property `schema` requires that is null in `row` (of type `column`), as a path. */
  private def nullRequired(schema: StructType, column: StructType, row: InternalRow, at: String): Option[String] = {
    val found = schema.fields.iterator.flatMap { property =>
      Some(column.fieldNames.indexOf(property.name)).filter(_ >= 0).toSeq.flatMap { i =>
        val path = s"$at/${property.name}"
        if (row.isNullAt(i)) if (property.nullable) Nil else Seq(path)
        else (property.dataType, column.fields(i).dataType) match {
          case (s: StructType, c: StructType) => nullRequired(s, c, row.getStruct(i, c.size), path).toSeq
          case _ => Nil
        }
      }
    }
    if (found.hasNext) Some(found.next()) else None
  }
}
