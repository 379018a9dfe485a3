// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.schemaregistry

import scala.jdk.CollectionConverters._

import org.apache.avro.{LogicalTypes, Schema}
import org.apache.avro.Schema.Type._
import org.apache.spark.sql.types._

import io.github.sparkkinesis.client.sdk.SchemaRegistryException

/**
 * The Spark type of each Avro schema, as Spark's `from_avro` maps them: records to structs,
 * arrays, maps (string keys), enums to strings, fixed and bytes to binary, a union with null to
 * the other branch made nullable, other unions to a struct of `member0`, `member1`...; the
 * logical types date, timestamp-millis/-micros, local-timestamp-millis/-micros and decimal to
 * their Spark types.
 */
object AvroTypes {
  final case class SqlType(dataType: DataType, nullable: Boolean)

  def sqlType(schema: Schema): SqlType = sqlType(schema, Set.empty)

  private def sqlType(schema: Schema, seen: Set[String]): SqlType = {
    val logical = schema.getLogicalType
    schema.getType match {
      case INT if logical.isInstanceOf[LogicalTypes.Date] => SqlType(DateType, nullable = false)
      case INT => SqlType(IntegerType, nullable = false)
      case LONG => logical match {
          case _: LogicalTypes.TimestampMillis | _: LogicalTypes.TimestampMicros => SqlType(TimestampType, false)
          case _: LogicalTypes.LocalTimestampMillis | _: LogicalTypes.LocalTimestampMicros =>
            SqlType(TimestampNTZType, false)
          case _ => SqlType(LongType, nullable = false)
        }
      case BYTES | FIXED => logical match {
          case d: LogicalTypes.Decimal => SqlType(DecimalType(d.getPrecision, d.getScale), nullable = false)
          case _ => SqlType(BinaryType, nullable = false)
        }
      case STRING | ENUM => SqlType(StringType, nullable = false)
      case BOOLEAN => SqlType(BooleanType, nullable = false)
      case FLOAT => SqlType(FloatType, nullable = false)
      case DOUBLE => SqlType(DoubleType, nullable = false)
      case NULL => SqlType(NullType, nullable = true)
      case RECORD =>
        if (seen.contains(schema.getFullName))
          throw new SchemaRegistryException(
            s"The Avro record ${schema.getFullName} contains itself; recursive records have no Spark type")
        val fields = schema.getFields.asScala.map { f =>
          val t = sqlType(f.schema(), seen + schema.getFullName)
          StructField(f.name(), t.dataType, t.nullable)
        }
        SqlType(StructType(fields.toSeq), nullable = false)
      case ARRAY =>
        val element = sqlType(schema.getElementType, seen)
        SqlType(ArrayType(element.dataType, element.nullable), nullable = false)
      case MAP =>
        val value = sqlType(schema.getValueType, seen)
        SqlType(MapType(StringType, value.dataType, value.nullable), nullable = false)
      case UNION =>
        val branches = schema.getTypes.asScala.toSeq
        val others = branches.filterNot(_.getType == NULL)
        val nullable = others.size < branches.size
        others.map(_.getType) match {
          case Seq() => SqlType(NullType, nullable = true)
          case Seq(_) => SqlType(sqlType(others.head, seen).dataType, nullable)
          case Seq(a, b) if Set(a, b) == Set(INT, LONG) && others.forall(_.getLogicalType == null) =>
            SqlType(LongType, nullable)
          case Seq(a, b) if Set(a, b) == Set(FLOAT, DOUBLE) => SqlType(DoubleType, nullable)
          case _ =>
            val members = others.zipWithIndex.map { case (branch, i) =>
              StructField(s"member$i", sqlType(branch, seen).dataType, nullable = true)
            }
            SqlType(StructType(members), nullable)
        }
    }
  }
}
