// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.schemaregistry

/**
 * Protobuf's own compatibility between the message a record was written with and the one a
 * query reads: fields are matched by number (names may change), a field only one side has is
 * fine (skipped, or absent), and a field both have must be encoded alike: the integer types
 * written as varints (int32, int64, uint32, uint64, bool, enums) with each other, sint32 with
 * sint64, fixed32 with sfixed32, fixed64 with sfixed64, string with bytes, messages field by field.
 */
object ProtobufCompatibility {

  /** Why records of `writer` cannot be read as `reader` (empty when they can), each naming the field. */
  def conflicts(readerFile: ProtoFile, reader: ProtoMessage, writerFile: ProtoFile, writer: ProtoMessage): Seq[String] =
    conflicts(readerFile, reader, writerFile, writer, reader.fullName, Set.empty)

  private def conflicts(readerFile: ProtoFile, reader: ProtoMessage, writerFile: ProtoFile, writer: ProtoMessage,
      at: String, seen: Set[(String, String)]): Seq[String] = {
    val written = writer.fields.map(f => f.number -> f).toMap
    reader.fields.flatMap { r =>
      written.get(r.number).toSeq.flatMap { w =>
        val path = s"$at.${r.name} (number ${r.number})"
        if (r.repeated != w.repeated || r.mapKey.isDefined != w.mapKey.isDefined)
          Seq(s"$path is ${shape(r)} in the query's schema, ${shape(w)} in the record's")
        else {
          val pairs = r.mapKey.zip(w.mapKey).toSeq :+ (r.fieldType -> w.fieldType)
          pairs.flatMap { case (rt, wt) =>
            (rt, wt) match {
              case (ProtoType.Message(rn), ProtoType.Message(wn)) =>
                if (seen((rn, wn))) Nil
                else conflicts(readerFile, readerFile.messages(rn), writerFile, writerFile.messages(wn), path,
                  seen + (rn -> wn))
              case _ if encoding(rt) == encoding(wt) => Nil
              case _ => Seq(s"$path is ${name(rt)} in the query's schema, ${name(wt)} in the record's")
            }
          }
        }
      }
    }
  }

  private def shape(f: ProtoField): String =
    if (f.mapKey.isDefined) "a map" else if (f.repeated) "repeated" else "singular"

  private def encoding(t: ProtoType): String = t match {
    case ProtoType.Scalar("int32" | "int64" | "uint32" | "uint64" | "bool") | _: ProtoType.Enum => "varint"
    case ProtoType.Scalar("sint32" | "sint64") => "zigzag"
    case ProtoType.Scalar("fixed32" | "sfixed32") => "fixed32"
    case ProtoType.Scalar("fixed64" | "sfixed64") => "fixed64"
    case ProtoType.Scalar("string" | "bytes") => "bytes"
    case ProtoType.Scalar(other) => other
    case other => name(other)
  }

  private def name(t: ProtoType): String = t match {
    case ProtoType.Scalar(n) => n
    case e: ProtoType.Enum => s"enum ${e.fullName}"
    case ProtoType.Message(n) => s"message $n"
    case ProtoType.Timestamp => "google.protobuf.Timestamp"
    case ProtoType.Duration => "google.protobuf.Duration"
  }
}
