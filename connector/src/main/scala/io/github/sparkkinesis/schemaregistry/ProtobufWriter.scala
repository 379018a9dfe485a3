// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.schemaregistry

import java.io.ByteArrayOutputStream

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.util.{ArrayData, MapData}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/**
 * Writes rows of a struct column as Protobuf messages of `message` (wire format). The column's
 * fields are matched to the message's by name; a column field the message lacks, or whose type
 * cannot hold the field's values, fails when the writer is built ([[ProtoSchemaException]],
 * naming the field). Null fields are not written; neither are proto3 fields without presence
 * at their default value, as Protobuf's own serializers do. Repeated numbers are packed in
 * proto3. A null proto2 required field, a null array element or an enum name the enum lacks
 * fails the row ([[ProtobufWireException]]). Not thread-safe.
 */
final class ProtobufWriter(file: ProtoFile, message: ProtoMessage, column: StructType) {
  private type Write = (ByteArrayOutputStream, Any) => Unit

  private val root: InternalRow => Array[Byte] = messageWriter(message, column, "", Set(message.fullName))

  def write(row: InternalRow): Array[Byte] = root(row)

  private def messageWriter(m: ProtoMessage, struct: StructType, at: String,
      seen: Set[String]): InternalRow => Array[Byte] = {
    val byName = m.fields.map(f => f.name -> f).toMap
    val writers = struct.fields.zipWithIndex.map { case (c, i) =>
      val path = s"$at/${c.name}"
      val field = byName.getOrElse(c.name,
        throw new ProtoSchemaException(
          s"the message ${m.fullName} has no field for the column's $path; its fields: ${m.fields.map(_.name).mkString(", ")}"))
      (i, field, c.dataType, fieldWriter(field, c.dataType, path, seen), path)
    }
    val required = m.fields.filter(_.required).map(_.name).filterNot(struct.fieldNames.contains)
    if (required.nonEmpty)
      throw new ProtoSchemaException(
        s"the column has no field for the required ${required.map(r => s"$at/$r").mkString(", ")}")
    row => {
      val out = new ByteArrayOutputStream(64)
      writers.foreach { case (i, field, dataType, write, path) =>
        if (row.isNullAt(i)) {
          if (field.required)
            throw new ProtobufWireException(s"a row has no value for $path, which the message requires")
        } else write(out, row.get(i, dataType))
      }
      out.toByteArray
    }
  }

  private def fieldWriter(field: ProtoField, dataType: DataType, path: String, seen: Set[String]): Write =
    (field.mapKey, dataType) match {
      case (Some(keyType), MapType(k, v, _)) =>
        val writeKey = valueWriter(keyType, k, s"$path{key}", seen)
        val writeValue = valueWriter(field.fieldType, v, s"$path{}", seen)
        (out, value) => {
          val map = value.asInstanceOf[MapData]
          val (keys, values) = (map.keyArray(), map.valueArray())
          var i = 0
          while (i < map.numElements()) {
            if (values.isNullAt(i)) throw new ProtobufWireException(s"a row has a null value in the map $path")
            val entry = new ByteArrayOutputStream(32)
            tag(entry, 1, keyType); writeKey(entry, keys.get(i, k))
            tag(entry, 2, field.fieldType); writeValue(entry, values.get(i, v))
            tagged(out, field.number, 2); varint(out, entry.size().toLong); entry.writeTo(out)
            i += 1
          }
        }
      case (Some(_), other) => throw mismatch(path, other, s"a map (${field.name} is a map field)")
      case (None, ArrayType(element, _)) if field.repeated =>
        val write = valueWriter(field.fieldType, element, s"$path[]", seen)
        val packed = file.proto3 && ProtobufReader.wireType(field.fieldType) != 2
        (out, value) => {
          val array = value.asInstanceOf[ArrayData]
          val n = array.numElements()
          if (packed && n > 0) {
            val body = new ByteArrayOutputStream(n * 4)
            (0 until n).foreach(i => write(body, elementAt(array, i, element, path)))
            tagged(out, field.number, 2); varint(out, body.size().toLong); body.writeTo(out)
          } else (0 until n).foreach { i =>
            tag(out, field.number, field.fieldType); write(out, elementAt(array, i, element, path))
          }
        }
      case (None, other) if field.repeated => throw mismatch(path, other, s"an array (${field.name} is repeated)")
      case (None, _) =>
        val write = valueWriter(field.fieldType, dataType, path, seen)
        (out, value) =>
          if (!(field.implicitPresence && isDefault(field.fieldType, value))) {
            tag(out, field.number, field.fieldType); write(out, value)
          }
    }

  private def elementAt(array: ArrayData, i: Int, dataType: DataType, path: String): Any =
    if (array.isNullAt(i)) throw new ProtobufWireException(s"a row has a null element in the array $path")
    else array.get(i, dataType)

  private def isDefault(t: ProtoType, value: Any): Boolean = (t, value) match {
    case (e: ProtoType.Enum, name: UTF8String) => e.numbers.get(name.toString).contains(0)
    case (_, f: java.lang.Float) => java.lang.Float.floatToRawIntBits(f) == 0
    case (_, d: java.lang.Double) => java.lang.Double.doubleToRawLongBits(d) == 0L
    case (_, n: java.lang.Number) => n.longValue() == 0L
    case (_, b: java.lang.Boolean) => !b
    case (_, s: UTF8String) => s.numBytes() == 0
    case (_, b: Array[Byte]) => b.isEmpty
    case _ => false
  }

  private def valueWriter(t: ProtoType, dataType: DataType, path: String, seen: Set[String]): Write =
    (t, dataType) match {
      case (ProtoType.Scalar(name), ByteType | ShortType | IntegerType | LongType)
          if ProtobufTypes.scalarType(name) == IntegerType ||
            ProtobufTypes.scalarType(name) == LongType =>
        val (lowest, highest) =
          if (ProtobufTypes.scalarType(name) == LongType) (Long.MinValue, Long.MaxValue)
          else if (name == "uint32" || name == "fixed32") (Int.MinValue.toLong, 0xffffffffL) // as read: an int
          else (Int.MinValue.toLong, Int.MaxValue.toLong)
        (out, value) => {
          val v = value.asInstanceOf[java.lang.Number].longValue()
          if (v < lowest || v > highest)
            throw new ProtobufWireException(s"a row's $path is $v, outside the range of $name")
          name match {
            case "sint32" => varint(out, ((v.toInt << 1) ^ (v.toInt >> 31)) & 0xffffffffL)
            case "sint64" => varint(out, (v << 1) ^ (v >> 63))
            case "uint32" => varint(out, v & 0xffffffffL)
            case "fixed32" | "sfixed32" => fixed32(out, v.toInt)
            case "fixed64" | "sfixed64" => fixed64(out, v)
            case _ => varint(out, v)
          }
        }
      case (ProtoType.Scalar("float"), FloatType | DoubleType) =>
        (out, value) => fixed32(out, java.lang.Float.floatToIntBits(value.asInstanceOf[java.lang.Number].floatValue()))
      case (ProtoType.Scalar("double"), FloatType | DoubleType) =>
        (out, value) =>
          fixed64(out, java.lang.Double.doubleToLongBits(value.asInstanceOf[java.lang.Number].doubleValue()))
      case (ProtoType.Scalar("bool"), BooleanType) =>
        (out, value) => varint(out, if (value.asInstanceOf[Boolean]) 1L else 0L)
      case (ProtoType.Scalar("string"), StringType) =>
        (out, value) => bytes(out, value.asInstanceOf[UTF8String].getBytes)
      case (ProtoType.Scalar("bytes"), BinaryType) => (out, value) => bytes(out, value.asInstanceOf[Array[Byte]])
      case (e: ProtoType.Enum, StringType) =>
        (out, value) => {
          val name = value.toString
          varint(out,
            e.numbers.getOrElse(name,
              throw new ProtobufWireException(
                s"a row's $path is '$name', not a value of enum ${e.fullName} (${e.names.toSeq.sortBy(_._1).map(
                    _._2).mkString(", ")})")).toLong)
        }
      case (_: ProtoType.Enum, IntegerType) => (out, value) => varint(out, value.asInstanceOf[Int].toLong)
      case (ProtoType.Timestamp, TimestampType | TimestampNTZType) | (ProtoType.Duration, _: DayTimeIntervalType) =>
        (out, value) => {
          val micros = value.asInstanceOf[Long]
          val body = new ByteArrayOutputStream(16)
          val seconds = Math.floorDiv(micros, 1000000L)
          val nanos = (Math.floorMod(micros, 1000000L) * 1000).toInt
          if (seconds != 0) { tagged(body, 1, 0); varint(body, seconds) }
          if (nanos != 0) { tagged(body, 2, 0); varint(body, nanos.toLong) }
          bytes(out, body.toByteArray)
        }
      case (ProtoType.Message(name), struct: StructType) =>
        if (seen(name)) throw new ProtoSchemaException(s"$path: message $name contains itself")
        val write = messageWriter(file.messages(name), struct, path, seen + name)
        (out, value) => bytes(out, write(value.asInstanceOf[InternalRow]))
      case (other, _) => throw mismatch(path, dataType, describe(other))
    }

  private def describe(t: ProtoType): String = t match {
    case ProtoType.Scalar(name) => s"$name (${ProtobufTypes.scalarType(name).simpleString})"
    case e: ProtoType.Enum => s"enum ${e.fullName} (string or int)"
    case ProtoType.Timestamp => "google.protobuf.Timestamp (timestamp)"
    case ProtoType.Duration => "google.protobuf.Duration (interval day to second)"
    case ProtoType.Message(name) => s"message $name (struct)"
  }

  private def mismatch(path: String, dataType: DataType, expected: String): ProtoSchemaException =
    new ProtoSchemaException(s"the column's ${if (path.isEmpty) "row" else path} is ${dataType.simpleString}; " +
      s"the message field is $expected")

  private def tag(out: ByteArrayOutputStream, number: Int, t: ProtoType): Unit =
    tagged(out, number, ProtobufReader.wireType(t))

  private def tagged(out: ByteArrayOutputStream, number: Int, wire: Int): Unit =
    varint(out, (number.toLong << 3) | wire)

  private def varint(out: ByteArrayOutputStream, value: Long): Unit = {
    var v = value
    while ((v & ~0x7fL) != 0) { out.write(((v & 0x7f) | 0x80).toInt); v >>>= 7 }
    out.write(v.toInt)
  }

  private def fixed32(out: ByteArrayOutputStream, v: Int): Unit = (0 until 4).foreach(i => out.write(v >>> (8 * i)))
  private def fixed64(out: ByteArrayOutputStream, v: Long): Unit =
    (0 until 8).foreach(i => out.write((v >>> (8 * i)).toInt))

  private def bytes(out: ByteArrayOutputStream, b: Array[Byte]): Unit = {
    varint(out, b.length.toLong); out.write(b, 0, b.length)
  }
}
