// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.wire

import java.io.ByteArrayOutputStream
import java.nio.charset.StandardCharsets.UTF_8

import scala.util.Random

/**
 * CBOR data items (RFC 8949) as the property tests write them, in forms no production encoder
 * here emits: heads with longer arguments than needed, indefinite-length strings, arrays and
 * maps, tags, half floats, undefined and other simple values.
 */
sealed trait Cbor

object Cbor {
  /** An unsigned integer; a negative `value` stands for one of 2^63 or more. */
  final case class Unsigned(value: Long) extends Cbor
  /** The integer -1 - `n` (`n` unsigned, as above). */
  final case class Negative(n: Long) extends Cbor
  /** A byte string; with `chunks`, an indefinite-length one in pieces of those sizes (then the rest). */
  final case class Bytes(value: Array[Byte], chunks: Option[Seq[Int]] = None) extends Cbor
  /** A text string of any bytes (valid UTF-8 or not), chunked as [[Bytes]]. */
  final case class Text(value: Array[Byte], chunks: Option[Seq[Int]] = None) extends Cbor
  final case class Items(items: Seq[Cbor], indefinite: Boolean = false) extends Cbor
  final case class Fields(entries: Seq[(Cbor, Cbor)], indefinite: Boolean = false) extends Cbor
  final case class Tagged(tag: Long, item: Cbor) extends Cbor
  final case class Half(bits: Int) extends Cbor
  final case class Single(value: Float) extends Cbor
  final case class Double64(value: Double) extends Cbor
  /** A simple value: 20 false, 21 true, 22 null, 23 undefined, others unassigned. */
  final case class Simple(value: Int) extends Cbor

  val Null: Cbor = Simple(22)
  val Undefined: Cbor = Simple(23)

  def text(s: String): Text = Text(s.getBytes(UTF_8))
  def map(entries: (String, Cbor)*): Fields = Fields(entries.map { case (k, v) => (text(k), v) })

  /**
   * The item's bytes. With `widen`, some heads take a longer argument than they need (a choice
   * made by that seed; 0 writes every head in its shortest form).
   */
  def encode(item: Cbor, widen: Long = 0L): Array[Byte] = {
    val out = new ByteArrayOutputStream()
    new Writer(out, if (widen == 0L) None else Some(new Random(widen))).write(item)
    out.toByteArray
  }

  private final class Writer(out: ByteArrayOutputStream, widen: Option[Random]) {
    def write(item: Cbor): Unit = item match {
      case Unsigned(v) => head(0, v)
      case Negative(n) => head(1, n)
      case Bytes(v, chunks) => string(2, v, chunks)
      case Text(v, chunks) => string(3, v, chunks)
      case Items(items, indefinite) =>
        if (indefinite) out.write(0x9f) else head(4, items.size.toLong)
        items.foreach(write)
        if (indefinite) out.write(0xff)
      case Fields(entries, indefinite) =>
        if (indefinite) out.write(0xbf) else head(5, entries.size.toLong)
        entries.foreach { case (k, v) => write(k); write(v) }
        if (indefinite) out.write(0xff)
      case Tagged(tag, inner) => head(6, tag); write(inner)
      case Half(bits) => out.write(0xf9); bigEndian(bits.toLong, 2)
      case Single(f) => out.write(0xfa); bigEndian(java.lang.Float.floatToRawIntBits(f).toLong, 4)
      case Double64(d) => out.write(0xfb); bigEndian(java.lang.Double.doubleToRawLongBits(d), 8)
      case Simple(v) => if (v < 24) out.write(0xe0 | v) else { out.write(0xf8); out.write(v) }
    }

    private def string(major: Int, value: Array[Byte], chunks: Option[Seq[Int]]): Unit = chunks match {
      case None =>
        head(major, value.length.toLong); out.write(value)
      case Some(sizes) =>
        out.write(major << 5 | 31)
        var at = 0
        (sizes :+ value.length).foreach { size =>
          val n = math.min(size, value.length - at)
          head(major, n.toLong); out.write(value, at, n)
          at += n
        }
        out.write(0xff)
    }

    /** A head with argument `n` (unsigned): shortest, or one of the longer forms that still hold it. */
    private def head(major: Int, n: Long): Unit = {
      val shortest =
        if (n >= 0 && n < 24) 0
        else if (n >= 0 && n < 0x100) 1
        else if (n >= 0 && n < 0x10000) 2
        else if (n >= 0 && n < 0x100000000L) 4
        else 8
      val size = widen.fold(shortest) { r =>
        val forms = Seq(0, 1, 2, 4, 8).filter(s => s >= shortest && (s != 0 || shortest == 0))
        if (r.nextInt(4) == 0) forms(r.nextInt(forms.size)) else shortest
      }
      size match {
        case 0 => out.write(major << 5 | n.toInt)
        case 1 => out.write(major << 5 | 24); bigEndian(n, 1)
        case 2 => out.write(major << 5 | 25); bigEndian(n, 2)
        case 4 => out.write(major << 5 | 26); bigEndian(n, 4)
        case _ => out.write(major << 5 | 27); bigEndian(n, 8)
      }
    }

    private def bigEndian(v: Long, bytes: Int): Unit =
      (bytes - 1 to 0 by -1).foreach(i => out.write((v >>> (8 * i)).toInt & 0xff))
  }
}
