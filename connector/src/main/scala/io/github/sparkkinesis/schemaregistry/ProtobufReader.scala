// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.schemaregistry

import scala.collection.mutable.ArrayBuffer

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.catalyst.util.{ArrayBasedMapData, GenericArrayData}
import org.apache.spark.unsafe.types.UTF8String

/**
 * Reads Protobuf messages of `message` (wire format) straight into Spark rows of
 * [[ProtobufTypes.structOf]], by field number: fields the message does not declare are skipped,
 * fields a record lacks are null (repeated ones and maps empty), as Spark's `from_protobuf` gives
 * them; packed and unpacked repeated fields are both read; of a singular field written twice, the
 * last value counts. A record that is not such a message fails with [[ProtobufWireException]]
 * saying where. Not thread-safe.
 */
final class ProtobufReader(file: ProtoFile, message: ProtoMessage) {
  import ProtobufReader._

  private val root = plan(message, Set(message.fullName))

  def read(bytes: Array[Byte], offset: Int, length: Int): InternalRow = {
    val in = new Cursor(bytes, offset)
    val row = readMessage(root, in, offset + length, depth = 1)
    row
  }

  private def plan(m: ProtoMessage, seen: Set[String]): MessagePlan = {
    val fields = ProtobufTypes.typedFields(file, m, seen).zipWithIndex.map { case ((field, _), index) =>
      new FieldPlan(index, field, valuePlan(field.fieldType, seen), field.mapKey.map(valuePlan(_, seen)))
    }
    new MessagePlan(m.fullName, fields.toArray)
  }

  private def valuePlan(t: ProtoType, seen: Set[String]): ValuePlan = t match {
    case ProtoType.Message(name) => MessageValue(plan(file.messages(name), seen + name))
    case other => SimpleValue(other)
  }

  private def readMessage(plan: MessagePlan, in: Cursor, until: Int, depth: Int): InternalRow = {
    if (depth > MaxDepth) throw new ProtobufWireException(s"messages nest deeper than $MaxDepth")
    val values = new Array[Any](plan.fields.length)
    val lists = new Array[ArrayBuffer[Any]](plan.fields.length)
    val keys = new Array[ArrayBuffer[Any]](plan.fields.length)
    while (in.pos < until) {
      val tag = in.varint(until)
      val number = (tag >>> 3).toInt
      val wire = (tag & 7).toInt
      val field = plan.byNumber.get(number)
      if (field == null) skip(in, wire, until, number)
      else if (field.key.isDefined) {
        expectWire(field, wire, 2)
        val end = in.lengthDelimited(until)
        val (k, v) = readEntry(field, in, end, depth + 1)
        if (keys(field.index) == null) { keys(field.index) = ArrayBuffer.empty; lists(field.index) = ArrayBuffer.empty }
        keys(field.index) += k
        lists(field.index) += v
      } else if (field.field.repeated) {
        if (lists(field.index) == null) lists(field.index) = ArrayBuffer.empty
        if (wire == 2 && packable(field.value)) {
          val end = in.lengthDelimited(until)
          while (in.pos < end) lists(field.index) += readValue(field, field.value, wireOf(field.value), in, end, depth)
          if (in.pos != end) throw new ProtobufWireException(s"packed field '${field.field.name}' ends mid-value")
        } else lists(field.index) += readValue(field, field.value, wire, in, until, depth)
      } else values(field.index) = readValue(field, field.value, wire, in, until, depth)
    }
    if (in.pos != until) throw new ProtobufWireException(s"message ${plan.name} ends mid-field")
    plan.fields.foreach { f =>
      if (f.key.isDefined) {
        val k = Option(keys(f.index)).getOrElse(ArrayBuffer.empty)
        val v = Option(lists(f.index)).getOrElse(ArrayBuffer.empty)
        values(f.index) = ArrayBasedMapData(k.toArray, v.toArray)
      } else if (f.field.repeated)
        values(f.index) = new GenericArrayData(Option(lists(f.index)).getOrElse(ArrayBuffer.empty).toArray)
    }
    new GenericInternalRow(values)
  }

  // A map entry: key (field 1) and value (field 2), each at its default when absent.
  private def readEntry(field: FieldPlan, in: Cursor, until: Int, depth: Int): (Any, Any) = {
    val keyPlan = field.key.get
    var key: Any = null
    var value: Any = null
    while (in.pos < until) {
      val tag = in.varint(until)
      val wire = (tag & 7).toInt
      (tag >>> 3).toInt match {
        case 1 => key = readValue(field, keyPlan, wire, in, until, depth)
        case 2 => value = readValue(field, field.value, wire, in, until, depth)
        case other => skip(in, wire, until, other)
      }
    }
    if (in.pos != until) throw new ProtobufWireException(s"an entry of map '${field.field.name}' ends mid-field")
    (if (key == null) default(keyPlan) else key, if (value == null) default(field.value) else value)
  }

  private def default(plan: ValuePlan): Any = plan match {
    case MessageValue(m) => readMessage(m, new Cursor(Array.emptyByteArray, 0), 0, 1)
    case SimpleValue(ProtoType.Scalar("string")) => UTF8String.EMPTY_UTF8
    case SimpleValue(ProtoType.Scalar("bytes")) => Array.emptyByteArray
    case SimpleValue(ProtoType.Scalar("bool")) => false
    case SimpleValue(ProtoType.Scalar("float")) => 0f
    case SimpleValue(ProtoType.Scalar("double")) => 0d
    case SimpleValue(ProtoType.Scalar(name)) =>
      if (ProtobufTypes.scalarType(name) == org.apache.spark.sql.types.LongType) 0L else 0
    case SimpleValue(e: ProtoType.Enum) => UTF8String.fromString(e.names.getOrElse(0, "0"))
    case SimpleValue(_) => 0L // Timestamp, Duration: the epoch, zero
  }

  private def readValue(field: FieldPlan, plan: ValuePlan, wire: Int, in: Cursor, until: Int, depth: Int): Any =
    plan match {
      case MessageValue(m) =>
        expectWire(field, wire, 2)
        val end = in.lengthDelimited(until)
        readMessage(m, in, end, depth + 1)
      case SimpleValue(t) =>
        expectWire(field, wire, wireOf(plan))
        t match {
          case ProtoType.Scalar(name) => scalar(name, in, until)
          case e: ProtoType.Enum =>
            val n = in.varint(until).toInt
            UTF8String.fromString(e.names.getOrElse(n, n.toString))
          case ProtoType.Timestamp | ProtoType.Duration =>
            val end = in.lengthDelimited(until)
            var seconds = 0L
            var nanos = 0L
            while (in.pos < end) {
              val tag = in.varint(end)
              ((tag >>> 3).toInt, (tag & 7).toInt) match {
                case (1, 0) => seconds = in.varint(end)
                case (2, 0) => nanos = in.varint(end).toInt.toLong
                case (n, w) => skip(in, w, end, n)
              }
            }
            Math.addExact(Math.multiplyExact(seconds, 1000000L), nanos / 1000)
          case ProtoType.Message(_) => throw new IllegalStateException("messages are planned")
        }
    }

  private def scalar(name: String, in: Cursor, until: Int): Any = name match {
    case "int32" | "uint32" => in.varint(until).toInt
    case "int64" | "uint64" => in.varint(until)
    case "sint32" => val v = in.varint(until).toInt; (v >>> 1) ^ -(v & 1)
    case "sint64" => val v = in.varint(until); (v >>> 1) ^ -(v & 1)
    case "bool" => in.varint(until) != 0
    case "fixed32" | "sfixed32" => in.fixed32(until)
    case "fixed64" | "sfixed64" => in.fixed64(until)
    case "float" => java.lang.Float.intBitsToFloat(in.fixed32(until))
    case "double" => java.lang.Double.longBitsToDouble(in.fixed64(until))
    case "string" =>
      val end = in.lengthDelimited(until)
      val s = UTF8String.fromBytes(java.util.Arrays.copyOfRange(in.bytes, in.pos, end))
      in.pos = end
      s
    case "bytes" =>
      val end = in.lengthDelimited(until)
      val b = java.util.Arrays.copyOfRange(in.bytes, in.pos, end)
      in.pos = end
      b
  }

  private def expectWire(field: FieldPlan, wire: Int, expected: Int): Unit =
    if (wire != expected)
      throw new ProtobufWireException(s"field '${field.field.name}' (number ${field.field.number}) has wire type " +
        s"$wire; its type is written as wire type $expected")

  private def skip(in: Cursor, wire: Int, until: Int, number: Int): Unit = wire match {
    case 0 => in.varint(until)
    case 1 => in.fixed64(until)
    case 2 => in.pos = in.lengthDelimited(until)
    case 5 => in.fixed32(until)
    case other => throw new ProtobufWireException(s"field number $number has wire type $other" +
        (if (other == 3 || other == 4) " (a group, which is not read)" else ", which Protobuf does not have"))
  }
}

object ProtobufReader {
  /** How deep messages may nest in a record. */
  val MaxDepth: Int = 64

  private sealed trait ValuePlan
  private final case class SimpleValue(t: ProtoType) extends ValuePlan
  private final case class MessageValue(plan: MessagePlan) extends ValuePlan

  private final class FieldPlan(val index: Int, val field: ProtoField, val value: ValuePlan, val key: Option[ValuePlan])

  private final class MessagePlan(val name: String, val fields: Array[FieldPlan]) {
    val byNumber = new java.util.HashMap[Int, FieldPlan]()
    fields.foreach(f => byNumber.put(f.field.number, f))
  }

  private def wireOf(plan: ValuePlan): Int = plan match {
    case MessageValue(_) => 2
    case SimpleValue(t) => wireType(t)
  }

  /** The wire type a value of `t` is written with. */
  def wireType(t: ProtoType): Int = t match {
    case ProtoType.Scalar("fixed32" | "sfixed32" | "float") => 5
    case ProtoType.Scalar("fixed64" | "sfixed64" | "double") => 1
    case ProtoType.Scalar("string" | "bytes") => 2
    case ProtoType.Scalar(_) | _: ProtoType.Enum => 0
    case _ => 2
  }

  private def packable(plan: ValuePlan): Boolean = wireOf(plan) != 2

  /** A position in a record, and the reads of Protobuf's primitive encodings, each bounded by `until`. */
  private final class Cursor(val bytes: Array[Byte], var pos: Int) {
    def varint(until: Int): Long = {
      var result = 0L
      var shift = 0
      while (true) {
        if (pos >= until) throw new ProtobufWireException("a varint runs past the end of its message")
        if (shift >= 70) throw new ProtobufWireException("a varint is longer than 10 bytes")
        val b = bytes(pos)
        pos += 1
        result |= (b & 0x7fL) << shift
        if ((b & 0x80) == 0) return result
        shift += 7
      }
      result
    }

    def fixed32(until: Int): Int = {
      if (pos + 4 > until) throw new ProtobufWireException("a 32-bit value runs past the end of its message")
      val v = (bytes(pos) & 0xff) | (bytes(pos + 1) & 0xff) << 8 | (bytes(pos + 2) & 0xff) << 16 |
        (bytes(pos + 3) & 0xff) << 24
      pos += 4
      v
    }

    def fixed64(until: Int): Long = {
      if (pos + 8 > until) throw new ProtobufWireException("a 64-bit value runs past the end of its message")
      var v = 0L
      var i = 7
      while (i >= 0) { v = v << 8 | (bytes(pos + i) & 0xffL); i -= 1 }
      pos += 8
      v
    }

    /** Reads a length; the end of the bytes it announces, which must lie within `until`. */
    def lengthDelimited(until: Int): Int = {
      val length = varint(until)
      if (length < 0 || length > until - pos)
        throw new ProtobufWireException(s"a length of $length bytes runs past the end of its message")
      pos + length.toInt
    }
  }
}

/** Bytes that are not a Protobuf message of the expected type; the message says where. */
final class ProtobufWireException(message: String) extends RuntimeException(message)
