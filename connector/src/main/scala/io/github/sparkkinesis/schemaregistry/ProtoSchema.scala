// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.schemaregistry

/** The type of a Protobuf field, its named types resolved to full names ([[ProtoParser]]). */
sealed trait ProtoType

object ProtoType {
  /** A scalar: int32, int64, uint32, uint64, sint32, sint64, fixed32, fixed64, sfixed32, sfixed64, float, double, bool, string, bytes. */
  final case class Scalar(name: String) extends ProtoType
  final case class Enum(fullName: String, names: Map[Int, String]) extends ProtoType {
    lazy val numbers: Map[String, Int] = names.map(_.swap)
  }
  final case class Message(fullName: String) extends ProtoType
  /** google.protobuf.Timestamp (a Spark timestamp). */
  case object Timestamp extends ProtoType
  /** google.protobuf.Duration (a Spark day-time interval). */
  case object Duration extends ProtoType

  val Scalars: Set[String] = Set("int32", "int64", "uint32", "uint64", "sint32", "sint64", "fixed32", "fixed64",
    "sfixed32", "sfixed64", "float", "double", "bool", "string", "bytes")
}

/**
 * A field of a message. `repeated` for repeated and map fields (`mapKey` set for a map, whose
 * values are of `fieldType`); `required` for proto2 required fields; `implicitPresence` for
 * proto3 singular fields outside `optional` and `oneof`, whose default value is not written.
 */
final case class ProtoField(name: String, number: Int, fieldType: ProtoType, repeated: Boolean,
    required: Boolean, implicitPresence: Boolean, mapKey: Option[ProtoType] = None)

final case class ProtoMessage(fullName: String, fields: Seq[ProtoField])

/**
 * A parsed `.proto` file: its messages by full name (nested ones included), `declared`, their
 * full names in the order they appear, and whether its syntax is proto3.
 */
final case class ProtoFile(packageName: String, messages: Map[String, ProtoMessage], declared: Seq[String],
    proto3: Boolean) {

  /**
   * The messages as the Glue Schema Registry serializers number them in a record: every
   * message of the file's descriptor, nested ones included (and so the entry message protoc
   * makes for each map field), sorted by full name.
   */
  lazy val indexed: IndexedSeq[String] = {
    val mapEntries = for {
      name <- declared
      field <- messages(name).fields if field.mapKey.isDefined
    } yield s"$name.${ProtoFile.mapEntryName(field.name)}"
    (declared ++ mapEntries).sorted.toIndexedSeq
  }

  /** The message called `name` (its full name, or its name without the package); the first declared when None. */
  def message(name: Option[String]): ProtoMessage = name match {
    case None => messages(declared.head)
    case Some(n) =>
      val full = n.stripPrefix(".")
      messages.get(full).orElse(messages.get(qualified(full))).getOrElse(throw new IllegalArgumentException(
          s"The .proto has no message '$n'; its messages: ${declared.mkString(", ")}"))
  }

  private def qualified(name: String): String = if (packageName.isEmpty) name else s"$packageName.$name"
}

object ProtoFile {
  /** The name of the entry message protoc makes for map field `field`: `my_counts` has `MyCountsEntry`. */
  def mapEntryName(field: String): String = {
    val name = new StringBuilder
    var upper = true
    field.foreach { c =>
      if (c == '_') upper = true
      else if (upper) { name += c.toUpper; upper = false }
      else name += c
    }
    name.append("Entry").toString
  }
}
