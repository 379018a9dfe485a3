// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.schemaregistry

import java.nio.ByteBuffer

import scala.jdk.CollectionConverters._

import org.apache.avro.{LogicalTypes, Schema}
import org.apache.avro.Schema.Type._
import org.apache.avro.generic.GenericData
import org.apache.avro.util.Utf8
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.util.{ArrayData, MapData}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import io.github.sparkkinesis.client.sdk.SchemaRegistryException

/**
 * Spark values as Avro's generic values of a schema, the reverse of [[AvroToCatalyst]]: struct
 * fields are matched to record fields by name. Built once per (schema, Spark type); a Spark
 * type that does not fit the schema fails when built, naming the field.
 */
object CatalystToAvro {
  def converter(schema: Schema, dataType: DataType, path: String = "the column"): Any => AnyRef = {
    def mismatch(): Nothing = throw new SchemaRegistryException(
      s"$path is ${dataType.simpleString}, which cannot be written as Avro ${schema.getType.getName.toLowerCase}" +
        s" (schema ${schema.getFullName})")
    val logical = schema.getLogicalType
    (schema.getType, dataType) match {
      case (UNION, _) =>
        val others = schema.getTypes.asScala.filterNot(_.getType == NULL)
        if (others.size != 1) throw new SchemaRegistryException(
          s"$path: unions of several non-null types are not written (schema ${schema.getFullName})")
        converter(others.head, dataType, path)
      case (NULL, _) => _ => null
      case (BOOLEAN, BooleanType) | (INT, IntegerType | DateType) | (LONG, LongType) | (FLOAT, FloatType) |
          (DOUBLE, DoubleType) => v => v.asInstanceOf[AnyRef]
      case (LONG, TimestampType | TimestampNTZType) => logical match {
          case _: LogicalTypes.TimestampMillis | _: LogicalTypes.LocalTimestampMillis =>
            v => java.lang.Long.valueOf(Math.floorDiv(v.asInstanceOf[Long], 1000L))
          case _ => v => v.asInstanceOf[AnyRef]
        }
      case (STRING, StringType) => v => new Utf8(v.asInstanceOf[UTF8String].getBytes)
      case (ENUM, StringType) => v => new GenericData.EnumSymbol(schema, v.toString)
      case (BYTES, BinaryType) => v => ByteBuffer.wrap(v.asInstanceOf[Array[Byte]])
      case (BYTES, _: DecimalType) => v => ByteBuffer.wrap(unscaled(v, logical))
      case (FIXED, BinaryType) => v => new GenericData.Fixed(schema, v.asInstanceOf[Array[Byte]])
      case (FIXED, _: DecimalType) =>
        v => {
          val bytes = unscaled(v, logical)
          val padded = new Array[Byte](schema.getFixedSize)
          val fill: Byte = if (bytes.headOption.exists(_ < 0)) -1 else 0
          java.util.Arrays.fill(padded, 0, padded.length - bytes.length, fill)
          System.arraycopy(bytes, 0, padded, padded.length - bytes.length, bytes.length)
          new GenericData.Fixed(schema, padded)
        }
      case (RECORD, struct: StructType) =>
        val fields = schema.getFields.asScala.toArray.map { f =>
          val index = struct.fieldNames.indexOf(f.name())
          if (index < 0) throw new SchemaRegistryException(
            s"$path has no field '${f.name()}', which Avro record ${schema.getFullName} needs; it has " +
              struct.fieldNames.mkString(", "))
          (index, struct(index).dataType, converter(f.schema(), struct(index).dataType, s"field '${f.name()}'"))
        }
        v => {
          val row = v.asInstanceOf[InternalRow]
          val record = new GenericData.Record(schema)
          var i = 0
          while (i < fields.length) {
            val (index, fieldType, convert) = fields(i)
            record.put(i, if (row.isNullAt(index)) null else convert(row.get(index, fieldType)))
            i += 1
          }
          record
        }
      case (ARRAY, ArrayType(element, _)) =>
        val convert = converter(schema.getElementType, element, s"$path's elements")
        v => {
          val items = v.asInstanceOf[ArrayData]
          val out = new java.util.ArrayList[AnyRef](items.numElements())
          for (i <- 0 until items.numElements())
            out.add(if (items.isNullAt(i)) null else convert(items.get(i, element)))
          out
        }
      case (MAP, MapType(StringType, value, _)) =>
        val convert = converter(schema.getValueType, value, s"$path's values")
        v => {
          val map = v.asInstanceOf[MapData]
          val out = new java.util.HashMap[Utf8, AnyRef](map.numElements() * 2)
          for (i <- 0 until map.numElements()) {
            val key = new Utf8(map.keyArray().getUTF8String(i).getBytes)
            out.put(key, if (map.valueArray().isNullAt(i)) null else convert(map.valueArray().get(i, value)))
          }
          out
        }
      case _ => mismatch()
    }
  }

  private def unscaled(v: Any, logical: org.apache.avro.LogicalType): Array[Byte] = logical match {
    case d: LogicalTypes.Decimal =>
      v.asInstanceOf[Decimal].toJavaBigDecimal.setScale(d.getScale).unscaledValue().toByteArray
    case _ =>
      throw new SchemaRegistryException("a decimal is written to Avro bytes or fixed with the decimal logical type")
  }
}
