// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.wire

import java.io.{IOException, InputStream, OutputStream}

import scala.collection.mutable.ArrayBuffer

/**
 * An HTTP answer's body kept in pieces of `pieceLength` bytes (a power of two; the last piece
 * may be shorter), not in one array. A GetRecords answer holds up to 10 MiB, and G1 allocates
 * an array of half a region or more (512 KiB in the smallest regions, 4 MiB in a 16 GiB heap)
 * outside the young generation: every answer of a backfill was one such allocation, and they
 * started G1's concurrent cycles. Pieces are ordinary objects; whole ones come from a
 * [[PiecePool]] and go back to it ([[release]]) once the records are read out of them.
 */
private[client] final class BodyPieces private (pool: PiecePool, pieces: Array[Array[Byte]], val length: Int) {
  private val shift = Integer.numberOfTrailingZeros(pool.pieceLength)
  private val mask = (1 << shift) - 1

  /** The byte at `pos` (0 until [[length]]), unsigned. */
  def apply(pos: Int): Int = pieces(pos >>> shift)(pos & mask) & 0xff

  /** The piece that holds `pos`, when `n` (at least 1) bytes from `pos` lie in it; otherwise null. */
  def pieceHolding(pos: Int, n: Int): Array[Byte] =
    if ((pos & mask) + n <= (1 << shift)) pieces(pos >>> shift) else null

  /** Where `pos` is in its piece. */
  def offsetInPiece(pos: Int): Int = pos & mask

  /** `n` bytes from `pos` in an array of their own. */
  def copy(pos: Int, n: Int): Array[Byte] = {
    val out = new Array[Byte](n)
    copyInto(pos, out, 0, n)
    out
  }

  private def copyInto(pos: Int, into: Array[Byte], at: Int, n: Int): Unit =
    slices(pos, n)((piece, from, done, k) => System.arraycopy(piece, from, into, at + done, k))

  /** Writes `n` bytes from `pos` to `out`. */
  def writeTo(out: OutputStream, pos: Int, n: Int): Unit =
    slices(pos, n)((piece, from, _, k) => out.write(piece, from, k))

  /** The `n` bytes from `pos` piece by piece: `f(piece, offset in it, bytes before it, bytes in it)`. */
  private def slices(pos: Int, n: Int)(f: (Array[Byte], Int, Int, Int) => Unit): Unit = {
    var done = 0
    while (done < n) {
      val at = pos + done
      val k = math.min(n - done, (1 << shift) - (at & mask))
      f(pieces(at >>> shift), at & mask, done, k)
      done += k
    }
  }

  /**
   * Hands the pieces back to the pool, for other answers to be read into: nothing read from
   * this body may refer to them any more, and this body is not read again.
   */
  def release(): Unit = {
    pool.give(pieces)
    java.util.Arrays.fill(pieces.asInstanceOf[Array[AnyRef]], null)
  }

  /**
   * The whole body again, as a stream whose reads fill what they are asked across pieces, as a
   * stream over one array would: the SDK's parser, reading an answer the connector left to it,
   * sees the same reads either way (on a damaged answer, even its error depends on them).
   */
  def inputStream(): InputStream = new InputStream {
    private var at = 0
    override def read(): Int =
      if (at >= length) -1
      else { at += 1; apply(at - 1) }
    override def read(into: Array[Byte], off: Int, len: Int): Int =
      if (len == 0) 0
      else if (at >= length) -1
      else {
        val n = math.min(len, length - at)
        copyInto(at, into, off, n)
        at += n
        n
      }
    override def available(): Int = length - at
  }
}

private[client] object BodyPieces {

  /** 64 KiB: an eighth of the largest array G1 keeps in the young generation with its smallest regions (1 MiB). */
  val PieceLength: Int = 64 * 1024

  /**
   * Reads `in` to its end, or to the length the answer `declared` (-1 if it declared none), as
   * the HTTP client ends a body there, into whole pieces of `pool` and, with a declared
   * length, a last piece of the size it will hold.
   */
  def read(in: InputStream, declared: Long, pool: PiecePool): BodyPieces = {
    val limit = if (declared >= 0) declared else Long.MaxValue
    val pieces = ArrayBuffer.empty[Array[Byte]]
    var length = 0L
    var ended = false
    while (!ended && length < limit) {
      if (length > Int.MaxValue - pool.pieceLength) throw new IOException("an answer of 2 GiB or more")
      val size = math.min(pool.pieceLength.toLong, limit - length).toInt
      val piece = if (size == pool.pieceLength) pool.take() else new Array[Byte](size)
      val n = fill(in, piece)
      if (n > 0) {
        pieces += piece
        length += n
      } else pool.give(Array(piece))
      ended = n < size
    }
    new BodyPieces(pool, pieces.toArray, length.toInt)
  }

  /** Reads into `piece` until it is full or `in` ends; how many bytes it read. */
  private def fill(in: InputStream, piece: Array[Byte]): Int = {
    var n = 0
    var read = 0
    while (n < piece.length && { read = in.read(piece, n, piece.length - n); read >= 0 }) n += read
    n
  }
}
