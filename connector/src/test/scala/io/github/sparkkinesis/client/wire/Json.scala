// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.wire

import scala.util.Random

/**
 * JSON values (RFC 8259) as the property tests write them: any whitespace between tokens, and
 * strings with the escapes JSON allows for any character (an escaped slash, any character as a
 * hexadecimal escape, surrogate pairs as two of them), which no production encoder here emits.
 */
sealed trait Json

object Json {
  /** A string; `plain` ones are written with only the escapes JSON requires (base64 data). */
  final case class Str(value: String, plain: Boolean = false) extends Json
  /** A number, as its text (so every form of one can be written). */
  final case class Num(text: String) extends Json
  final case class Obj(fields: Seq[(String, Json)]) extends Json
  final case class Arr(items: Seq[Json]) extends Json
  final case class Bool(value: Boolean) extends Json
  case object Null extends Json

  /**
   * The value's text. With a `style` seed, whitespace goes between tokens and characters are
   * escaped where they need not be (field names too when `escapeNames`); seed 0 writes it compactly.
   */
  def render(value: Json, style: Long = 0L, escapeNames: Boolean = false): String = {
    val r = if (style == 0L) None else Some(new Random(style))
    val out = new java.lang.StringBuilder()
    def space(): Unit = r.foreach(r => if (r.nextInt(4) == 0) out.append(" \t\n\r".charAt(r.nextInt(4))))
    def string(s: String, mayEscape: Boolean): Unit = {
      out.append('"')
      s.foreach { c =>
        val optional = mayEscape && r.exists(_.nextInt(6) == 0)
        c match {
          case '"' => out.append("\\\"")
          case '\\' => out.append("\\\\")
          case '/' if optional => out.append("\\/")
          case '\n' if !optional => out.append("\\n")
          case '\t' if !optional => out.append("\\t")
          case c if c < 0x20 || optional => out.append(f"\\u${c.toInt}%04x")
          case c => out.append(c)
        }
      }
      out.append('"')
    }
    def write(v: Json): Unit = {
      space()
      v match {
        case Str(s, plain) => string(s, !plain)
        case Num(text) => out.append(text)
        case Bool(b) => out.append(b)
        case Null => out.append("null")
        case Arr(items) =>
          out.append('[')
          items.zipWithIndex.foreach { case (item, i) => if (i > 0) out.append(','); write(item) }
          space(); out.append(']')
        case Obj(fields) =>
          out.append('{')
          fields.zipWithIndex.foreach { case ((name, item), i) =>
            if (i > 0) out.append(',')
            space(); string(name, escapeNames); space(); out.append(':'); write(item)
          }
          space(); out.append('}')
      }
      space()
    }
    write(value)
    out.toString
  }
}
