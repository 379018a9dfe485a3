// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.schemaregistry

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import org.apache.spark.sql.types._

import io.github.sparkkinesis.client.sdk.SchemaRegistryException

/**
 * The Spark type of a JSON Schema, for the subset records are read and written with: `object`
 * with `properties` (a struct, its fields in the order given; a property in `required` whose
 * type does not allow null is not nullable) or with only `additionalProperties` (a map of
 * string keys), `array` with `items`, `string` (format `date`: date, `date-time`: timestamp),
 * `integer` (long), `number` (double), `boolean`, a `type` list with `null` (nullable). A schema
 * with no type (`{}`) is a string holding the value's JSON text. Validation keywords (`enum`,
 * `minimum`, `pattern`, ...) and annotations are ignored; keywords that combine or refer to
 * other schemas fail, naming the keyword and where it is.
 */
object JsonSchemaTypes {
  final case class SqlType(dataType: DataType, nullable: Boolean)

  val Unsupported: Seq[String] = Seq("$ref", "$dynamicRef", "oneOf", "anyOf", "allOf", "not", "if", "then", "else",
    "patternProperties", "dependentSchemas", "dependencies", "prefixItems", "unevaluatedProperties",
    "unevaluatedItems")

  private val json = new ObjectMapper()

  /** The type of records of `definition` (a JSON Schema in JSON), whose root must be an object. */
  def rootType(definition: String): StructType = {
    val root =
      try json.readTree(definition)
      catch { case e: Exception => throw new SchemaRegistryException(s"The JSON Schema is not JSON: ${e.getMessage}") }
    sqlType(root, "#") match {
      case SqlType(struct: StructType, _) => struct
      case SqlType(other, _) => throw unsupported("#",
          s"its root is ${other.simpleString}; records must be objects " +
            "(\"type\": \"object\" with \"properties\")")
    }
  }

  def sqlType(schema: JsonNode, at: String): SqlType = {
    if (schema.isBoolean) return SqlType(StringType, nullable = true) // true: any value, as JSON text.
    if (!schema.isObject) throw unsupported(at, s"a schema must be an object or a boolean, not ${schema.getNodeType}")
    Unsupported.find(keyword => schema.has(keyword)).foreach { keyword =>
      throw unsupported(at, s"keyword '$keyword' is not supported")
    }
    val (types, nullable) = declaredTypes(schema, at)
    types match {
      case Seq() => SqlType(StringType, nullable = true)
      case Seq(single) => SqlType(typeOf(single, schema, at), nullable)
      case several => throw unsupported(at,
          s"keyword 'type' names several types (${several.mkString(", ")}); " +
            "one type, or one type and \"null\", is supported")
    }
  }

  /** The non-null types a schema allows (inferred from `properties` or `items` when it has no `type`), and whether null is one. */
  private def declaredTypes(schema: JsonNode, at: String): (Seq[String], Boolean) = {
    val typeNode = schema.get("type")
    val listed =
      if (typeNode == null) Nil
      else if (typeNode.isTextual) Seq(typeNode.asText())
      else if (typeNode.isArray) typeNode.elements().asScala.map(_.asText()).toSeq
      else throw unsupported(at, s"keyword 'type' must be a string or an array of strings, not $typeNode")
    val nonNull = listed.filterNot(_ == "null")
    val inferred =
      if (typeNode != null) nonNull
      else if (schema.has("properties") || schema.has("additionalProperties")) Seq("object")
      else if (schema.has("items")) Seq("array")
      else Nil
    (inferred, typeNode == null || listed.contains("null"))
  }

  private def typeOf(name: String, schema: JsonNode, at: String): DataType = name match {
    case "object" => objectType(schema, at)
    case "array" =>
      val items = schema.get("items")
      if (items == null) ArrayType(StringType, containsNull = true)
      else if (items.isArray) throw unsupported(s"$at/items", "keyword 'items' as an array (a tuple) is not supported")
      else {
        val element = sqlType(items, s"$at/items")
        ArrayType(element.dataType, element.nullable)
      }
    case "string" => Option(schema.get("format")).map(_.asText()) match {
        case Some("date") => DateType
        case Some("date-time") => TimestampType
        case _ => StringType
      }
    case "integer" => LongType
    case "number" => DoubleType
    case "boolean" => BooleanType
    case other => throw unsupported(at,
        s"keyword 'type' names '$other'; allowed: object, array, string, integer, " +
          "number, boolean, null")
  }

  private def objectType(schema: JsonNode, at: String): DataType = {
    val properties = schema.get("properties")
    val additional = schema.get("additionalProperties")
    if (properties == null || properties.isEmpty) {
      val values =
        if (additional != null && additional.isObject) sqlType(additional, s"$at/additionalProperties")
        else SqlType(StringType, nullable = true)
      MapType(StringType, values.dataType, values.nullable)
    } else {
      val required = Option(schema.get("required")).map(_.elements().asScala.map(_.asText()).toSet).getOrElse(Set.empty)
      StructType(properties.properties().asScala.toSeq.map { entry =>
        val name = entry.getKey
        val field = sqlType(entry.getValue, s"$at/properties/$name")
        StructField(name, field.dataType, nullable = field.nullable || !required(name))
      })
    }
  }

  /**
   * Why a record of a writer schema of type `writer` cannot be read as `reader`, if it cannot:
   * a property both have, of types whose JSON values differ (an integer is read as a number, and
   * any value as a string's JSON text). Properties only one of them has are fine.
   */
  def conflicts(reader: DataType, writer: DataType, at: String = ""): Seq[String] = (reader, writer) match {
    case (r: StructType, w: StructType) =>
      val byName = w.fields.map(f => f.name -> f.dataType).toMap
      r.fields.toSeq.flatMap(f => byName.get(f.name).toSeq.flatMap(conflicts(f.dataType, _, s"$at/${f.name}")))
    case (ArrayType(r, _), ArrayType(w, _)) => conflicts(r, w, s"$at[]")
    case (MapType(_, r, _), MapType(_, w, _)) => conflicts(r, w, s"$at{}")
    case (r, w) if r == w || r == StringType || (r == DoubleType && w == LongType) => Nil
    case (r, w) if r.isInstanceOf[StructType] && w.isInstanceOf[MapType] => Nil // Only its known keys are read.
    case (r, w) => Seq(s"${if (at.isEmpty) "the record" else at} is ${w.simpleString} there, ${r.simpleString} here")
  }

  private def unsupported(at: String, why: String): SchemaRegistryException =
    new SchemaRegistryException(s"JSON Schema at $at: $why. Supported: objects with properties and required, " +
      "arrays with items, string (formats date and date-time), integer, number, boolean, and null in a type list")
}
