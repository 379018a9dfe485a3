// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.wire

import java.io.ByteArrayOutputStream
import java.nio.charset.StandardCharsets.UTF_8
import java.util.{Arrays, Base64}

import io.github.sparkkinesis.client.wire.CborCodes._
import io.github.sparkkinesis.client.wire.GetRecordsCbor.Unreadable

/** CBOR's (RFC 8949) major types and special bytes, as [[GetRecordsCbor]] and [[CborReader]] read and write them. */
private[client] object CborCodes {
  final val MajorUnsigned = 0
  final val MajorNegative = 1
  final val MajorBytes = 2
  final val MajorText = 3
  final val MajorArray = 4
  final val MajorMap = 5
  final val MajorTag = 6
  final val MajorSimple = 7
  final val Indefinite = -1L
  /**
   * Tags the SDK's CBOR parser reads a meaning into: bignums (2, 3) and decimal and binary
   * fractions (4, 5) become numbers, string references (25, 256) stand for earlier strings.
   */
  val MeaningfulTags = Set(2L, 3L, 4L, 5L, 25L, 256L)
  final val Break = 0xff
  final val Null = 0xf6
  final val Undefined = 0xf7

  /** A CBOR head: major type and argument, in its shortest form. */
  def writeHead(out: ByteArrayOutputStream, major: Int, n: Long): Unit = {
    val m = major << 5
    if (n < 24) out.write(m | n.toInt)
    else if (n < 0x100) { out.write(m | 24); out.write(n.toInt) }
    else if (n < 0x10000) { out.write(m | 25); out.write((n >>> 8).toInt); out.write(n.toInt) }
    else if (n < 0x100000000L) { out.write(m | 26); (24 to 0 by -8).foreach(s => out.write((n >>> s).toInt)) }
    else { out.write(m | 27); (56 to 0 by -8).foreach(s => out.write((n >>> s).toInt)) }
  }

  /** An IEEE 754 half-precision float's value. */
  def halfToFloat(bits: Int): Float = {
    val exponent = (bits >>> 10) & 0x1f
    val mantissa = bits & 0x3ff
    val magnitude =
      if (exponent == 0) mantissa * math.pow(2, -24)
      else if (exponent == 31) (if (mantissa == 0) Double.PositiveInfinity else Double.NaN)
      else (mantissa + 1024) * math.pow(2, exponent - 25)
    (if ((bits & 0x8000) != 0) -magnitude else magnitude).toFloat
  }
}

/**
 * A cursor over the CBOR data items of a GetRecords answer; every read checks the bounds, and
 * what it cannot read is a [[GetRecordsCbor.Unreadable]]. What it read last
 * is left in fields ([[major]], [[argument]]; a string's [[array]], [[offset]], [[length]])
 * rather than returned in tuples: a record has a dozen items, and boxing each one's head
 * was most of what reading a record allocated besides its data.
 */
private[client] final class CborReader(body: BodyPieces) {
  var pos = 0
  /** The last head's major type and argument (a length, a count or a value). */
  var major = 0
  var argument = 0L
  /**
   * The last string read: a slice of one of the body's pieces, or a copy of its own ([[copied]])
   * when it spans two pieces or is an indefinite one's chunks joined.
   */
  var array: Array[Byte] = Array.emptyByteArray
  var offset = 0
  var length = 0
  private var copied = false

  private def byte(): Int = {
    if (pos >= body.length) throw new Unreadable("the answer ends early")
    val b = body(pos)
    pos += 1
    b
  }

  private def peek(): Int = {
    if (pos >= body.length) throw new Unreadable("the answer ends early")
    body(pos)
  }

  private def readArgument(info: Int): Long = info match {
    case i if i < 24 => i.toLong
    case 24 => byte().toLong
    case 25 => (byte() << 8 | byte()).toLong
    case 26 => (byte().toLong << 24) | (byte() << 16 | byte() << 8 | byte()).toLong
    case 27 =>
      var v = 0L
      var i = 0
      while (i < 8) { v = (v << 8) | byte(); i += 1 }
      v
    case 31 => Indefinite
    case _ => throw new Unreadable(s"CBOR additional information $info is reserved")
  }

  /** Reads the next item's head, tags skipped, into [[major]] and [[argument]]; returns the major type. */
  def head(): Int = {
    var b = byte()
    while (b >>> 5 == MajorTag) {
      // The SDK's parser refuses a tag beyond an int (and an indefinite one), and gives some a meaning.
      val tag = readArgument(b & 0x1f)
      if (tag < 0 || tag > Int.MaxValue || MeaningfulTags.contains(tag)) throw new Unreadable(s"CBOR tag $tag")
      b = byte()
    }
    major = b >>> 5
    val info = b & 0x1f
    argument = if (major == MajorSimple) info.toLong else readArgument(info)
    if (major >= MajorBytes && major <= MajorMap) {
      // A length or count is unsigned: one of 2^63 or more would read as negative (2^64 - 1 as
      // indefinite), and none can be more than the bytes left, as each item takes one at least.
      if (info != 31 && (argument < 0 || argument > body.length - pos))
        throw new Unreadable(s"a CBOR length or count of ${java.lang.Long.toUnsignedString(argument)} " +
          s"with ${body.length - pos} bytes left")
    } else if (info == 31 && major != MajorSimple) throw new Unreadable(s"CBOR major type $major of indefinite length")
    major
  }

  def atBreak(): Boolean = if (peek() == Break) { pos += 1; true }
  else false
  def atNull(): Boolean = { val b = peek(); b == Null || b == Undefined }

  private def checkedLength(n: Long): Int = {
    if (n < 0 || n > body.length - pos) throw new Unreadable("a CBOR string runs past the answer")
    n.toInt
  }

  /** Reads the byte or text string whose head was just read (the chunks of an indefinite one joined). */
  private def string(): Unit = {
    val stringMajor = major
    if (argument != Indefinite) {
      length = checkedLength(argument)
      val piece = if (length == 0) Array.emptyByteArray else body.pieceHolding(pos, length)
      copied = piece == null
      if (copied) { array = body.copy(pos, length); offset = 0 }
      else { array = piece; offset = if (length == 0) 0 else body.offsetInPiece(pos) }
      pos += length
    } else {
      val joined = new ByteArrayOutputStream()
      while (!atBreak()) {
        // A chunk is a definite string of the same type, with no tag.
        val b = byte()
        if (b >>> 5 != stringMajor || (b & 0x1f) == 31) throw new Unreadable("a malformed CBOR string chunk")
        val len = checkedLength(readArgument(b & 0x1f))
        body.writeTo(joined, pos, len)
        pos += len
      }
      array = joined.toByteArray
      copied = true
      offset = 0
      length = array.length
    }
  }

  def text(): String = {
    if (head() != MajorText) throw new Unreadable(s"CBOR major type $major where text was expected")
    string()
    utf8()
  }

  /** The string just read as text; the SDK's parser refuses one that is not UTF-8 (the JDK would replace what is wrong). */
  private def utf8(): String = {
    val s = new String(array, offset, length, UTF_8)
    if (s.indexOf('\uFFFD') >= 0) {
      val valid = s.getBytes(UTF_8)
      if (!Arrays.equals(valid, 0, valid.length, array, offset, offset + length))
        throw new Unreadable("CBOR text that is not UTF-8")
    }
    s
  }

  /** Binary data as the SDK reads it: a byte string, or base64 text. */
  def blob(): Array[Byte] = head() match {
    case MajorBytes =>
      string()
      if (copied) array else Arrays.copyOfRange(array, offset, offset + length)
    case MajorText =>
      string()
      try Base64.getDecoder.decode(new String(array, offset, length, UTF_8))
      catch { case e: IllegalArgumentException => throw new Unreadable(s"base64 data: ${e.getMessage}") }
    case other => throw new Unreadable(s"CBOR major type $other where binary data was expected")
  }

  /** A number as a long, fractions cut off, as the SDK reads epoch milliseconds. */
  def number(): Long = {
    head()
    val n = argument
    major match {
      case MajorUnsigned if n >= 0 => n
      case MajorNegative if n >= 0 => -1L - n
      case MajorSimple if n == 25 => wholeNumber(halfToFloat(readArgument(25).toInt))
      case MajorSimple if n == 26 => wholeNumber(java.lang.Float.intBitsToFloat(readArgument(26).toInt))
      case MajorSimple if n == 27 => wholeNumber(java.lang.Double.longBitsToDouble(readArgument(27)))
      case _ => throw new Unreadable(s"CBOR item ($major, $n) where a number was expected")
    }
  }

  /** A float cut toward zero, as the SDK's parser reads it as a long: one beyond a long's range (or infinite) fails there. */
  private def wholeNumber(d: Double): Long =
    if (d < Long.MinValue.toDouble || d > Long.MaxValue.toDouble) throw new Unreadable(s"a number $d beyond a long")
    else d.toLong

  /** The index in `names` (UTF-8) of the next item, a map key, or -1 for another name. */
  def key(names: Array[Array[Byte]]): Int = {
    if (peek() >>> 5 != MajorText)
      throw new Unreadable(s"CBOR major type ${peek() >>> 5} where a field name was expected")
    head()
    string()
    var i = 0
    while (i < names.length && !Arrays.equals(array, offset, offset + length, names(i), 0, names(i).length)) i += 1
    if (i < names.length) i
    else { utf8(); -1 }
  }

  /**
   * Past one whole data item (nested ones included), found `depth` arrays or maps deep in the
   * item the caller skips; one nested deeper than [[CborReader.MaxDepth]] is [[Unreadable]].
   */
  def skip(depth: Int = 0): Unit = {
    head()
    major match {
      case MajorUnsigned | MajorNegative =>
      case MajorBytes | MajorText => string()
      case MajorArray | MajorMap =>
        if (depth >= CborReader.MaxDepth) throw new Unreadable(s"CBOR nested more than ${CborReader.MaxDepth} deep")
        if (major == MajorArray) items(argument, depth + 1) else fields(argument, depth + 1)
      case MajorSimple =>
        argument match {
          case 24 => byte()
          case 25 | 26 | 27 => readArgument(argument.toInt)
          // Reserved (28 to 30), or a break outside an item of indefinite length: malformed CBOR.
          case 28 | 29 | 30 | 31 => throw new Unreadable(s"CBOR simple value $argument where an item was expected")
          case _ =>
        }
      case _ => throw new Unreadable(s"CBOR major type $major cannot be skipped")
    }
  }

  private def items(count: Long, depth: Int): Unit =
    if (count == Indefinite) while (!atBreak()) skip(depth)
    else {
      var i = 0L
      while (i < count) { skip(depth); i += 1 }
    }

  /** Past a map's entries. The SDK's parser takes only UTF-8 text and integers (untagged) as keys. */
  private def fields(count: Long, depth: Int): Unit = {
    var i = 0L
    while (if (count == Indefinite) !atBreak() else i < count) {
      peek() >>> 5 match {
        case MajorText => head(); string(); utf8()
        case MajorUnsigned | MajorNegative => skip(depth)
        case other => throw new Unreadable(s"CBOR major type $other as a map key")
      }
      skip(depth)
      i += 1
    }
  }
}

private[client] object CborReader {

  /**
   * How deep an item [[CborReader.skip]] steps over may nest. Kinesis answers nest four deep
   * (answer, `ChildShards`, a child shard, its `HashKeyRange`); 64 leaves room for fields it may
   * add, and keeps the recursion far from the end of any thread's stack. The SDK reads deeper
   * answers itself.
   */
  val MaxDepth = 64
}
