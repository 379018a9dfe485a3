// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.schemaregistry

import scala.collection.mutable

/**
 * The tokens of a `.proto` text, each with its line: words (names, numbers, `a.b.c`), quoted
 * strings, and single-character symbols; comments and white space dropped.
 */
final class ProtoTokens(text: String) {
  import ProtoTokens.Token

  private val tokens: IndexedSeq[Token] = {
    val out = mutable.ArrayBuffer.empty[Token]
    var i = 0
    var line = 1
    def word(c: Char) = c.isLetterOrDigit || c == '_' || c == '.'
    while (i < text.length) {
      val c = text.charAt(i)
      if (c == '\n') { line += 1; i += 1 }
      else if (c.isWhitespace) i += 1
      else if (text.startsWith("//", i)) while (i < text.length && text.charAt(i) != '\n') i += 1
      else if (text.startsWith("/*", i)) {
        val end = text.indexOf("*/", i + 2)
        if (end < 0) throw new ProtoSchemaException(s"line $line: a comment is not closed")
        line += text.substring(i, end).count(_ == '\n')
        i = end + 2
      } else if (c == '"' || c == '\'') {
        val start = line
        val value = new StringBuilder
        i += 1
        while (i < text.length && text.charAt(i) != c) {
          if (text.charAt(i) == '\n') throw new ProtoSchemaException(s"line $start: a string is not closed")
          if (text.charAt(i) == '\\' && i + 1 < text.length) i += 1
          value += text.charAt(i)
          i += 1
        }
        if (i >= text.length) throw new ProtoSchemaException(s"line $start: a string is not closed")
        i += 1
        out += Token(value.toString, start, quoted = true)
      } else if (word(c)) {
        val start = i
        while (i < text.length && word(text.charAt(i))) i += 1
        out += Token(text.substring(start, i), line, quoted = false)
      } else {
        out += Token(c.toString, line, quoted = false)
        i += 1
      }
    }
    out.toIndexedSeq
  }
  private var at = 0

  def atEnd: Boolean = at >= tokens.size

  /** The line of the next token (the last line at the end). */
  def line: Int = if (atEnd) tokens.lastOption.map(_.line).getOrElse(1) else tokens(at).line

  def peekIs(word: String): Boolean = !atEnd && !tokens(at).quoted && tokens(at).text == word

  def next(): (String, Int) = {
    if (atEnd) throw new ProtoSchemaException(s"line $line: the .proto text ends early")
    val token = tokens(at)
    at += 1
    (if (token.quoted) "\"" + token.text + "\"" else token.text, token.line)
  }

  def expect(word: String): Unit = {
    val (found, line) = next()
    if (found != word) throw new ProtoSchemaException(s"line $line: expected '$word', found '$found'")
  }

  def identifier(): String = {
    val (found, line) = next()
    if (found.isEmpty || !(found.head.isLetter || found.head == '_' || found.head == '.'))
      throw new ProtoSchemaException(s"line $line: expected a name, found '$found'")
    found
  }

  def string(): (String, Int) = {
    if (atEnd || !tokens(at).quoted)
      throw new ProtoSchemaException(
        s"line $line: expected a quoted string" + (if (atEnd) "" else s", found '${tokens(at).text}'"))
    val token = tokens(at)
    at += 1
    (token.text, token.line)
  }

  /** A decimal, hexadecimal (0x) or octal (0) integer, with an optional minus sign. */
  def integer(): (Long, Int) = {
    val negative = peekIs("-")
    if (negative) next()
    val (found, line) = next()
    val digits = found.toLowerCase(java.util.Locale.ROOT)
    val value =
      try {
        if (digits.startsWith("0x")) java.lang.Long.parseLong(digits.drop(2), 16)
        else if (digits.length > 1 && digits.startsWith("0")) java.lang.Long.parseLong(digits.drop(1), 8)
        else java.lang.Long.parseLong(digits)
      } catch {
        case _: NumberFormatException =>
          throw new ProtoSchemaException(s"line $line: expected a number, found '$found'")
      }
    (if (negative) -value else value, line)
  }

  /** Skips to the end of a statement (its `;`), over any `{...}` or `[...]` in it. */
  def skipStatement(): Unit = {
    var depth = 0
    var done = false
    while (!done) {
      val (found, _) = next()
      found match {
        case "{" | "[" | "(" => depth += 1
        case "}" | "]" | ")" => depth -= 1
        case ";" if depth == 0 => done = true
        case _ =>
      }
    }
  }

  /** Skips a `{...}` block, what is nested in it included. */
  def skipBlock(): Unit = skipBalanced("{", "}")

  /** Skips a `[...]` list of options. */
  def skipBracketed(): Unit = skipBalanced("[", "]")

  private def skipBalanced(open: String, close: String): Unit = {
    expect(open)
    var depth = 1
    while (depth > 0) {
      val (found, _) = next()
      if (found == open) depth += 1 else if (found == close) depth -= 1
    }
  }
}

private object ProtoTokens {
  private final case class Token(text: String, line: Int, quoted: Boolean)
}
