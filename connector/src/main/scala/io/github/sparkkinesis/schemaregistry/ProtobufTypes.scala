// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.schemaregistry

import org.apache.spark.sql.types._

/**
 * The Spark type of a Protobuf message, as Spark's `from_protobuf` maps it by default: 32-bit
 * integers (unsigned ones included) IntegerType, 64-bit ones LongType, enums their value's name,
 * Timestamp TimestampType, Duration a day-time interval, messages structs, repeated fields arrays
 * of non-null elements, maps maps of non-null values; proto2 required fields non-nullable.
 * Messages with no fields are dropped from their parent, and a message that contains itself
 * fails, as in `from_protobuf`.
 */
object ProtobufTypes {

  def structOf(file: ProtoFile, message: ProtoMessage): StructType = structOf(file, message, Set(message.fullName))

  /** The message's fields that have a Spark type, with it. */
  private[schemaregistry] def typedFields(file: ProtoFile, message: ProtoMessage,
      seen: Set[String]): Seq[(ProtoField, DataType)] =
    message.fields.flatMap(f => fieldType(file, f, seen).map(f -> _))

  private def structOf(file: ProtoFile, message: ProtoMessage, seen: Set[String]): StructType =
    StructType(typedFields(file, message, seen).map { case (f, t) =>
      StructField(f.name, t, nullable = !f.required)
    })

  private def fieldType(file: ProtoFile, field: ProtoField, seen: Set[String]): Option[DataType] =
    valueType(file, field.fieldType, seen, field.name).map { value =>
      field.mapKey match {
        case Some(key) => MapType(valueType(file, key, seen, field.name).get, value, valueContainsNull = false)
        case None if field.repeated => ArrayType(value, containsNull = false)
        case None => value
      }
    }

  /** None: a message without fields, which Spark's from_protobuf drops. */
  private def valueType(file: ProtoFile, t: ProtoType, seen: Set[String], field: String): Option[DataType] = t match {
    case ProtoType.Scalar(name) => Some(scalarType(name))
    case _: ProtoType.Enum => Some(StringType)
    case ProtoType.Timestamp => Some(TimestampType)
    case ProtoType.Duration => Some(DayTimeIntervalType.DEFAULT)
    case ProtoType.Message(name) =>
      if (seen(name))
        throw new ProtoSchemaException(s"Field '$field' makes message $name contain itself; recursive messages " +
          "have no Spark type")
      val struct = structOf(file, file.messages(name), seen + name)
      if (struct.isEmpty) None else Some(struct)
  }

  def scalarType(name: String): DataType = name match {
    case "int32" | "uint32" | "sint32" | "fixed32" | "sfixed32" => IntegerType
    case "int64" | "uint64" | "sint64" | "fixed64" | "sfixed64" => LongType
    case "float" => FloatType
    case "double" => DoubleType
    case "bool" => BooleanType
    case "string" => StringType
    case "bytes" => BinaryType
  }
}
