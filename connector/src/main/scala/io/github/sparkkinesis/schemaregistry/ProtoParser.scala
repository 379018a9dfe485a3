// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.schemaregistry

import scala.collection.mutable

/**
 * Parses the `.proto` text a Glue Schema Registry Protobuf schema version holds (proto2 or
 * proto3): `syntax`, `package`, messages (nested), scalar, enum, message and map fields,
 * `repeated`, `optional`, `required`, `oneof`, `reserved`, `extensions`, enums; options and
 * services are skipped; imports only of google/protobuf/timestamp.proto and duration.proto.
 * Anything else (groups, extensions, other imports, editions) fails with the line and the
 * construct. The text is bounded ([[MaxLength]]) and so is nesting ([[MaxDepth]]): a schema is
 * input too.
 */
object ProtoParser {
  val MaxLength: Int = 1 << 20
  val MaxDepth: Int = 32

  private val WellKnown = Map(
    "google/protobuf/timestamp.proto" -> ("google.protobuf.Timestamp" -> ProtoType.Timestamp),
    "google/protobuf/duration.proto" -> ("google.protobuf.Duration" -> ProtoType.Duration))

  def parse(text: String): ProtoFile = {
    if (text.length > MaxLength)
      throw new ProtoSchemaException(s"The .proto text has ${text.length} characters; at most $MaxLength are read")
    new Parser(new ProtoTokens(text)).file()
  }

  // A field as written, its type not yet resolved.
  private final case class RawField(name: String, number: Int, typeName: String, repeated: Boolean,
      required: Boolean, implicitPresence: Boolean, mapKey: Option[String], line: Int)
  private final case class RawEnum(fullName: String, names: Map[Int, String])

  private final class Parser(tokens: ProtoTokens) {
    private var proto3 = false
    private var packageName = ""
    private val imported = mutable.Map.empty[String, ProtoType]
    private val messages = mutable.LinkedHashMap.empty[String, Seq[RawField]]
    private val enums = mutable.Map.empty[String, RawEnum]

    def file(): ProtoFile = {
      if (tokens.peekIs("syntax")) {
        tokens.next(); tokens.expect("=")
        val (syntax, line) = tokens.string()
        if (syntax != "proto2" && syntax != "proto3")
          throw new ProtoSchemaException(s"line $line: syntax '$syntax' is not read; allowed: proto2, proto3")
        proto3 = syntax == "proto3"
        tokens.expect(";")
      }
      while (!tokens.atEnd) {
        val (word, line) = tokens.next()
        word match {
          case ";" =>
          case "package" => packageName = tokens.identifier(); tokens.expect(";")
          case "import" => importStatement()
          case "option" => tokens.skipStatement()
          case "message" => message(prefix = packageName, depth = 1)
          case "enum" => enumeration(packageName)
          case "service" => tokens.identifier(); tokens.skipBlock()
          case other => throw unsupported(line, other)
        }
      }
      if (messages.isEmpty) throw new ProtoSchemaException("The .proto declares no message")
      val resolved = messages.map { case (full, fields) =>
        full -> ProtoMessage(full, fields.map(resolve(full, _)))
      }
      ProtoFile(packageName, resolved.toMap, messages.keys.toSeq, proto3)
    }

    private def importStatement(): Unit = {
      if (tokens.peekIs("public") || tokens.peekIs("weak")) tokens.next()
      val (path, line) = tokens.string()
      val (name, wellKnown) = WellKnown.getOrElse(path,
        throw new ProtoSchemaException(
          s"line $line: import '$path' is not supported; the schema must be one file (imports allowed: " +
            s"${WellKnown.keys.toSeq.sorted.mkString(", ")})"))
      imported(name) = wellKnown
      tokens.expect(";")
    }

    private def message(prefix: String, depth: Int): Unit = {
      val line = tokens.line
      if (depth > MaxDepth) throw new ProtoSchemaException(s"line $line: messages nest deeper than $MaxDepth")
      val full = qualify(prefix, tokens.identifier())
      if (messages.contains(full) || enums.contains(full))
        throw new ProtoSchemaException(s"line $line: '$full' is declared twice")
      messages(full) = Nil // declared before its nested messages: the first declared is a top-level one
      val fields = mutable.ArrayBuffer.empty[RawField]
      tokens.expect("{")
      while (!tokens.peekIs("}")) body(full, depth, fields, inOneof = false)
      tokens.expect("}")
      val numbers = fields.groupBy(_.number).collect { case (n, fs) if fs.size > 1 => n }
      if (numbers.nonEmpty)
        throw new ProtoSchemaException(s"line $line: message $full uses field number ${numbers.min} twice")
      messages(full) = fields.toList
    }

    private def body(scope: String, depth: Int, fields: mutable.ArrayBuffer[RawField], inOneof: Boolean): Unit = {
      val (word, line) = tokens.next()
      word match {
        case ";" =>
        case "option" => tokens.skipStatement()
        case "reserved" | "extensions" if !inOneof => tokens.skipStatement()
        case "message" if !inOneof => message(scope, depth + 1)
        case "enum" if !inOneof => enumeration(scope)
        case "oneof" if !inOneof =>
          tokens.identifier(); tokens.expect("{")
          while (!tokens.peekIs("}")) body(scope, depth, fields, inOneof = true)
          tokens.expect("}")
        case "map" if !inOneof && tokens.peekIs("<") =>
          tokens.expect("<")
          val key = tokens.identifier()
          if (!ProtoType.Scalars(key) || key == "float" || key == "double" || key == "bytes")
            throw new ProtoSchemaException(
              s"line $line: map key type $key is not allowed; keys are integers, bool or string")
          tokens.expect(",")
          val value = tokens.identifier()
          tokens.expect(">")
          fields += field(value, repeated = true, required = false, implicitPresence = false, Some(key), line)
        case "repeated" | "optional" | "required" if !inOneof =>
          if (word == "required" && proto3)
            throw new ProtoSchemaException(s"line $line: 'required' is not allowed in proto3")
          fields += field(tokens.identifier(), repeated = word == "repeated", required = word == "required",
            implicitPresence = false, None, line)
        case "group" | "extend" => throw unsupported(line, word)
        case typeName if isTypeName(typeName) && !tokens.peekIs("=") =>
          if (!proto3 && !inOneof)
            throw new ProtoSchemaException(s"line $line: a proto2 field needs a label (optional, required or repeated)")
          fields += field(typeName, repeated = false, required = false, implicitPresence = proto3 && !inOneof, None,
            line)
        case other => throw unsupported(line, other)
      }
    }

    private def field(typeName: String, repeated: Boolean, required: Boolean, implicitPresence: Boolean,
        mapKey: Option[String], line: Int): RawField = {
      if (typeName == "group") throw unsupported(line, "group")
      val name = tokens.identifier()
      tokens.expect("=")
      val (number, numberLine) = tokens.integer()
      if (number < 1 || number > 536870911 || (number >= 19000 && number <= 19999))
        throw new ProtoSchemaException(
          s"line $numberLine: field number $number of '$name' is not allowed (1 to 536870911, outside 19000-19999)")
      if (tokens.peekIs("[")) tokens.skipBracketed()
      tokens.expect(";")
      RawField(name, number.toInt, typeName, repeated, required, implicitPresence, mapKey, line)
    }

    private def enumeration(prefix: String): Unit = {
      val line = tokens.line
      val full = qualify(prefix, tokens.identifier())
      if (messages.contains(full) || enums.contains(full))
        throw new ProtoSchemaException(s"line $line: '$full' is declared twice")
      val names = mutable.LinkedHashMap.empty[Int, String]
      tokens.expect("{")
      while (!tokens.peekIs("}")) {
        val (word, wordLine) = tokens.next()
        word match {
          case ";" =>
          case "option" | "reserved" => tokens.skipStatement()
          case name if isTypeName(name) =>
            tokens.expect("=")
            val (number, _) = tokens.integer()
            if (number < Int.MinValue || number > Int.MaxValue)
              throw new ProtoSchemaException(s"line $wordLine: enum value $name = $number is not a 32-bit number")
            if (tokens.peekIs("[")) tokens.skipBracketed()
            tokens.expect(";")
            if (!names.contains(number.toInt)) names(number.toInt) = name // an alias keeps the first name
          case other => throw unsupported(wordLine, other)
        }
      }
      tokens.expect("}")
      if (names.isEmpty) throw new ProtoSchemaException(s"line $line: enum $full has no values")
      enums(full) = RawEnum(full, names.toMap)
    }

    private def resolve(scope: String, raw: RawField): ProtoField = {
      val valueType = typeOf(scope, raw.typeName, raw.line)
      val implicitPresence = raw.implicitPresence && !valueType.isInstanceOf[ProtoType.Message] &&
        valueType != ProtoType.Timestamp && valueType != ProtoType.Duration
      ProtoField(raw.name, raw.number, valueType, raw.repeated, raw.required, implicitPresence,
        raw.mapKey.map(ProtoType.Scalar))
    }

    // Protobuf's scoping: the name in the message's scope, then in each enclosing scope outwards.
    private def typeOf(scope: String, name: String, line: Int): ProtoType =
      if (ProtoType.Scalars(name)) ProtoType.Scalar(name)
      else {
        val candidates =
          if (name.startsWith(".")) Seq(name.drop(1))
          else Iterator.iterate(scope)(s => s.take(math.max(0, s.lastIndexOf('.')))).takeWhile(_.nonEmpty)
            .map(s => s"$s.$name").toSeq :+ name
        candidates.iterator.map(found).collectFirst { case Some(t) => t }.getOrElse(
          throw new ProtoSchemaException(s"line $line: unknown type '$name'" +
            (if (name.startsWith("google.protobuf.")) " (import its .proto; only timestamp and duration are known)"
             else "")))
      }

    private def found(full: String): Option[ProtoType] =
      if (messages.contains(full)) Some(ProtoType.Message(full))
      else enums.get(full).map(e => ProtoType.Enum(e.fullName, e.names)).orElse(imported.get(full))

    private def qualify(prefix: String, name: String): String = if (prefix.isEmpty) name else s"$prefix.$name"

    private def isTypeName(word: String): Boolean =
      word.nonEmpty && (word.head.isLetter || word.head == '_' || word.head == '.') &&
        word.forall(c => c.isLetterOrDigit || c == '_' || c == '.')

    private def unsupported(line: Int, construct: String): ProtoSchemaException =
      new ProtoSchemaException(s"line $line: '$construct' is not supported here" + (construct match {
        case "group" => " (groups are not read; use a nested message)"
        case "extend" => " (extensions are not read)"
        case "edition" => " (editions are not read; use syntax proto2 or proto3)"
        case _ => ""
      }))
  }
}

/** A `.proto` text this connector cannot read; the message names the line and the construct. */
final class ProtoSchemaException(message: String) extends IllegalArgumentException(message)
