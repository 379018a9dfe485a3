// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.wire

import java.math.BigDecimal
import java.nio.{ByteBuffer, ByteOrder}
import java.nio.charset.StandardCharsets.UTF_8
import java.util.{Arrays, Base64}

import io.github.sparkkinesis.client.wire.JsonReader._
import io.github.sparkkinesis.client.wire.SubscribeEventJson.Unreadable

/**
 * A cursor over the JSON tokens of a SubscribeToShard event in `bytes(from until until)`; every
 * read checks the bounds, and what it cannot read is a [[SubscribeEventJson.Unreadable]].
 */
private[client] final class JsonReader(bytes: Array[Byte], from: Int, until: Int) {
  var pos: Int = from

  private def peek(): Int = {
    if (pos >= until) throw new Unreadable("the event ends early")
    bytes(pos) & 0xff
  }

  def skipSpace(): Unit =
    while (pos < until && { val b = bytes(pos); b == ' ' || b == '\n' || b == '\r' || b == '\t' }) pos += 1

  def expect(c: Char): Unit = {
    skipSpace()
    if (peek() != c) throw new Unreadable(s"'${peek().toChar}' where '$c' was expected")
    pos += 1
  }

  /** Past `c` if it comes next. */
  def consume(c: Char): Boolean = {
    skipSpace()
    if (pos < until && bytes(pos) == c) { pos += 1; true }
    else false
  }

  def atNull(): Boolean = {
    skipSpace()
    pos < until && bytes(pos) == 'n'
  }

  /** `bytes` eight at a time, for finding where strings end: most of an event is its records' base64 data. */
  private val words = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN)

  /** The end of the string that starts at `pos` (its closing quote); whether it holds escapes in `escaped`. */
  private var escaped = false
  private def stringEnd(): Int = {
    if (peek() != '"') throw new Unreadable(s"'${peek().toChar}' where a string was expected")
    escaped = false
    var at = pos + 1
    while (at + 8 <= until && !hasQuoteBackslashOrControl(words.getLong(at))) at += 8
    while (at < until && bytes(at) != '"') {
      val b = bytes(at)
      if (b == '\\') { escaped = true; at = escapeEnd(at) }
      // JSON forbids raw control characters in strings, and the SDK's parser refuses them.
      else if (b >= 0 && b < ' ') throw new Unreadable("a control character in a string")
      at += 1
    }
    if (at >= until) throw new Unreadable("a string runs past the event")
    at
  }

  /** The last character of the escape whose backslash is at `at`: JSON allows only these, and the SDK's parser refuses others. */
  private def escapeEnd(at: Int): Int = {
    def hex(i: Int) = i < until && Character.digit((bytes(i) & 0xff).toChar, 16) >= 0 && bytes(i) >= 0
    if (at + 1 >= until) throw new Unreadable("a string runs past the event")
    bytes(at + 1) match {
      case '"' | '\\' | '/' | 'b' | 'f' | 'n' | 'r' | 't' => at + 1
      case 'u' if (2 to 5).forall(i => hex(at + i)) => at + 5
      case _ => throw new Unreadable("a malformed escape in a string")
    }
  }

  /** The index in `names` (UTF-8) of the next field name, or -1 for another name. */
  def key(names: Array[Array[Byte]]): Int = {
    skipSpace()
    val end = stringEnd()
    if (escaped) throw new Unreadable("a field name with escapes")
    val start = pos + 1
    pos = end + 1
    var i = 0
    while (i < names.length && !Arrays.equals(bytes, start, end, names(i), 0, names(i).length)) i += 1
    if (i < names.length) i else -1
  }

  def text(): String = {
    skipSpace()
    val end = stringEnd()
    val start = pos + 1
    pos = end + 1
    if (!escaped) new String(bytes, start, end - start, UTF_8) else unescape(start, end)
  }

  /** Binary data as the SDK reads it: base64 text, decoded by the same JDK decoder. */
  def base64(): Array[Byte] = {
    skipSpace()
    val end = stringEnd()
    if (escaped) throw new Unreadable("base64 data with escapes")
    val start = pos + 1
    pos = end + 1
    val decoded =
      try Base64.getDecoder.decode(ByteBuffer.wrap(bytes, start, end - start))
      catch { case e: IllegalArgumentException => throw new Unreadable(s"base64 data: ${e.getMessage}") }
    val array = decoded.array()
    val first = decoded.arrayOffset + decoded.position()
    if (first == 0 && decoded.remaining == array.length) array
    else Arrays.copyOfRange(array, first, first + decoded.remaining)
  }

  /**
   * Epoch seconds as epoch milliseconds, as the SDK reads a JSON timestamp: its exact decimal
   * value times 1,000, cut toward zero. Plain `seconds.fraction` numbers are read directly.
   */
  def epochSecondsAsMillis(): Long = {
    skipSpace()
    val start = pos
    skipNumber()
    val length = pos - start
    if (length == 0) throw new Unreadable(s"'${peek().toChar}' where a timestamp number was expected")
    if (length > MaxTimestampLength) throw new Unreadable("a timestamp longer than the SDK reads")
    var seconds = 0L
    var at = start
    while (at < pos && bytes(at) >= '0' && bytes(at) <= '9') { seconds = seconds * 10 + (bytes(at) - '0'); at += 1 }
    val digits = at - start
    val plain = digits > 0 && digits <= 15
    if (plain && at < pos && bytes(at) == '.' && pos > at + 1 && onlyDigits(at + 1, pos)) {
      var millis = seconds
      var i = 0
      while (i < 3) {
        val d = at + 1 + i
        millis = millis * 10 + (if (d < pos) bytes(d) - '0' else 0)
        i += 1
      }
      millis
    } else if (plain && at == pos) seconds * 1000
    else {
      try new BigDecimal(new String(bytes, start, length, UTF_8)).scaleByPowerOfTen(3).longValue()
      catch { case _: NumberFormatException => throw new Unreadable("a malformed timestamp number") }
    }
  }

  /**
   * Past a JSON number, which must be one as RFC 8259 writes it (`-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`):
   * the SDK's parser refuses others (`01`, `1.`, `+1`), even in a field it skips.
   */
  private def skipNumber(): Unit = {
    if (pos < until && bytes(pos) == '-') pos += 1
    if (pos < until && bytes(pos) == '0') pos += 1
    else digits()
    if (pos < until && bytes(pos) == '.') { pos += 1; digits() }
    if (pos < until && (bytes(pos) == 'e' || bytes(pos) == 'E')) {
      pos += 1
      if (pos < until && (bytes(pos) == '+' || bytes(pos) == '-')) pos += 1
      digits()
    }
  }

  /** Past one or more decimal digits. */
  private def digits(): Unit = {
    val start = pos
    while (pos < until && bytes(pos) >= '0' && bytes(pos) <= '9') pos += 1
    if (pos == start) throw new Unreadable("a malformed number")
  }

  private def onlyDigits(from: Int, until: Int): Boolean = {
    var at = from
    while (at < until && bytes(at) >= '0' && bytes(at) <= '9') at += 1
    at == until
  }

  /** Past one whole value (nested ones included). */
  def skipValue(depth: Int = 0): Unit = {
    if (depth > MaxDepth) throw new Unreadable("the event nests too deep")
    skipSpace()
    peek() match {
      case '{' =>
        pos += 1
        if (!consume('}')) {
          while ({
            skipSpace()
            pos = stringEnd() + 1
            expect(':')
            skipValue(depth + 1)
            consume(',')
          }) ()
          expect('}')
        }
      case '[' =>
        pos += 1
        if (!consume(']')) {
          while ({
            skipValue(depth + 1)
            consume(',')
          }) ()
          expect(']')
        }
      case '"' => pos = stringEnd() + 1
      case 't' => literal("true")
      case 'f' => literal("false")
      case 'n' => literal("null")
      case c if c == '-' || (c >= '0' && c <= '9') =>
        skipNumber()
      case c => throw new Unreadable(s"'${c.toChar}' where a value was expected")
    }
  }

  private def literal(word: String): Unit = {
    var i = 0
    while (i < word.length) {
      if (peek() != word.charAt(i)) throw new Unreadable(s"a malformed '$word'")
      pos += 1
      i += 1
    }
  }

  /** A string with escapes, between its quotes. */
  private def unescape(start: Int, end: Int): String = {
    val raw = new String(bytes, start, end - start, UTF_8)
    val out = new java.lang.StringBuilder(raw.length)
    var i = 0
    while (i < raw.length) {
      val c = raw.charAt(i)
      if (c != '\\') { out.append(c); i += 1 }
      else {
        if (i + 1 >= raw.length) throw new Unreadable("a string ends in an escape")
        raw.charAt(i + 1) match {
          case '"' => out.append('"')
          case '\\' => out.append('\\')
          case '/' => out.append('/')
          case 'b' => out.append('\b')
          case 'f' => out.append('\f')
          case 'n' => out.append('\n')
          case 'r' => out.append('\r')
          case 't' => out.append('\t')
          case 'u' if i + 6 <= raw.length =>
            val hex = raw.substring(i + 2, i + 6)
            if (!hex.forall(h => Character.digit(h, 16) >= 0)) throw new Unreadable(s"a malformed escape \\u$hex")
            out.append(Integer.parseInt(hex, 16).toChar)
            i += 4
          case other => throw new Unreadable(s"a malformed escape \\$other")
        }
        i += 2
      }
    }
    out.toString
  }
}

private[client] object JsonReader {
  /** The SDK refuses a timestamp longer than this. */
  private val MaxTimestampLength = 20
  private val MaxDepth = 64

  private val Ones = 0x0101010101010101L
  private val Highs = 0x8080808080808080L
  private val Quotes = '"' * Ones
  private val Backslashes = '\\' * Ones
  private val Spaces = ' ' * Ones

  /**
   * Whether any of the eight bytes of `word` is a quote, a backslash (the classic zero-byte
   * test, twice) or a control character (the same test for bytes below a space).
   */
  private def hasQuoteBackslashOrControl(word: Long): Boolean = {
    val q = word ^ Quotes
    val b = word ^ Backslashes
    ((((q - Ones) & ~q) | ((b - Ones) & ~b) | ((word - Spaces) & ~word)) & Highs) != 0L
  }
}
