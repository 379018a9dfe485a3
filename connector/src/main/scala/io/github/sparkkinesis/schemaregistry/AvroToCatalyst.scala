// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.schemaregistry

import java.nio.ByteBuffer

import scala.jdk.CollectionConverters._

import org.apache.avro.{LogicalTypes, Schema}
import org.apache.avro.Schema.Type._
import org.apache.avro.generic.{GenericData, GenericFixed, IndexedRecord}
import org.apache.avro.util.Utf8
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.catalyst.util.{ArrayBasedMapData, GenericArrayData}
import org.apache.spark.sql.types.Decimal
import org.apache.spark.unsafe.types.UTF8String

/**
 * Turns what Avro's generic reader made of a record (read with the query's reader schema) into
 * Spark's internal values of [[AvroTypes.sqlType]] of that schema. Built once per reader schema:
 * each converter is a function chosen for its schema, so no record looks at a schema again.
 */
object AvroToCatalyst {
  def converter(schema: Schema): Any => Any = {
    val logical = schema.getLogicalType
    schema.getType match {
      case NULL => _ => null
      case BOOLEAN | INT | FLOAT | DOUBLE => identity
      case LONG => logical match {
          case _: LogicalTypes.TimestampMillis | _: LogicalTypes.LocalTimestampMillis =>
            v => Math.multiplyExact(v.asInstanceOf[Long], 1000L)
          case _ => identity
        }
      case STRING | ENUM => v => utf8(v)
      case BYTES => logical match {
          case d: LogicalTypes.Decimal => v => decimal(bytesOf(v), d)
          case _ => v => bytesOf(v)
        }
      case FIXED => logical match {
          case d: LogicalTypes.Decimal => v => decimal(v.asInstanceOf[GenericFixed].bytes(), d)
          case _ => v => v.asInstanceOf[GenericFixed].bytes().clone()
        }
      case RECORD =>
        val fields = schema.getFields.asScala.map(f => converter(f.schema())).toArray
        v => {
          val record = v.asInstanceOf[IndexedRecord]
          val values = new Array[Any](fields.length)
          var i = 0
          while (i < fields.length) {
            val field = record.get(i)
            values(i) = if (field == null) null else fields(i)(field)
            i += 1
          }
          new GenericInternalRow(values): InternalRow
        }
      case ARRAY =>
        val element = converter(schema.getElementType)
        v => {
          val items = v.asInstanceOf[java.util.Collection[Any]]
          val out = new Array[Any](items.size())
          var i = 0
          val it = items.iterator()
          while (it.hasNext) {
            val item = it.next()
            out(i) = if (item == null) null else element(item)
            i += 1
          }
          new GenericArrayData(out)
        }
      case MAP =>
        val value = converter(schema.getValueType)
        v => {
          val entries = v.asInstanceOf[java.util.Map[Any, Any]]
          val keys = new Array[Any](entries.size())
          val values = new Array[Any](entries.size())
          var i = 0
          val it = entries.entrySet().iterator()
          while (it.hasNext) {
            val e = it.next()
            keys(i) = utf8(e.getKey)
            values(i) = if (e.getValue == null) null else value(e.getValue)
            i += 1
          }
          new ArrayBasedMapData(new GenericArrayData(keys), new GenericArrayData(values))
        }
      case UNION => union(schema)
    }
  }

  private def union(schema: Schema): Any => Any = {
    val branches = schema.getTypes.asScala.toSeq
    val others = branches.filterNot(_.getType == NULL)
    val types = others.map(_.getType).toSet
    if (others.isEmpty) _ => null
    else if (others.size == 1) converter(others.head)
    else if (types == Set(INT, LONG) && others.forall(_.getLogicalType == null)) {
      case i: java.lang.Integer => i.longValue()
      case l => l
    }
    else if (types == Set(FLOAT, DOUBLE)) {
      case f: java.lang.Float => f.doubleValue()
      case d => d
    }
    else {
      val converters = others.map(converter).toArray
      v => {
        val index = GenericData.get().resolveUnion(schema, v)
        val member = others.indexOf(branches(index))
        val values = new Array[Any](converters.length)
        values(member) = converters(member)(v)
        new GenericInternalRow(values): InternalRow
      }
    }
  }

  private def utf8(v: Any): UTF8String = v match {
    case u: Utf8 => UTF8String.fromBytes(u.getBytes, 0, u.getByteLength)
    case other => UTF8String.fromString(other.toString)
  }

  private def bytesOf(v: Any): Array[Byte] = v match {
    case b: ByteBuffer =>
      val copy = new Array[Byte](b.remaining())
      b.duplicate().get(copy)
      copy
    case a: Array[Byte] => a
  }

  private def decimal(unscaled: Array[Byte], d: LogicalTypes.Decimal): Decimal =
    Decimal(new java.math.BigDecimal(new java.math.BigInteger(unscaled), d.getScale), d.getPrecision, d.getScale)
}
