// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, InputStream}

import org.scalatest.funsuite.AnyFunSuite

/** A body read in pieces gives back exactly the bytes it was read from, however they fall on pieces. */
class BodyPiecesSuite extends AnyFunSuite {
  private val Piece = 16

  private def bytes(n: Int) = Array.tabulate(n)(i => (i * 31 + 7).toByte)

  /** A stream that hands out at most 5 bytes a read, as a socket may. */
  private def trickle(b: Array[Byte]): InputStream = new ByteArrayInputStream(b) {
    override def read(into: Array[Byte], off: Int, len: Int): Int = super.read(into, off, math.min(len, 5))
  }

  private def whole(p: BodyPieces) = p.inputStream().readAllBytes()

  for (n <- Seq(0, 1, 15, 16, 17, 31, 32, 33, 100); declared <- Seq(true, false)) {
    test(s"$n bytes, length ${if (declared) "declared" else "not declared"}: every byte, slice and stream as sent") {
      val body = bytes(n)
      val p = BodyPieces.read(trickle(body), if (declared) n.toLong else -1L, Piece)
      assert(p.length == n)
      assert(whole(p).sameElements(body))
      assert((0 until n).forall(i => p(i) == (body(i) & 0xff)))
      for (from <- 0 to n; len <- 0 to (n - from)) {
        assert(p.copy(from, len).sameElements(body.slice(from, from + len)), s"copy($from, $len)")
        val out = new ByteArrayOutputStream()
        p.writeTo(out, from, len)
        assert(out.toByteArray.sameElements(body.slice(from, from + len)), s"writeTo($from, $len)")
        val piece = if (len == 0) null else p.pieceHolding(from, len)
        if (len == 0) ()
        else if (piece != null) {
          val at = p.offsetInPiece(from)
          assert(piece.slice(at, at + len).sameElements(body.slice(from, from + len)), s"pieceHolding($from, $len)")
        } else assert(from / Piece != (from + len - 1) / Piece, s"($from, $len) lies in one piece")
      }
    }
  }

  test("a declared length ends the body there; a stream that ends early gives what it had") {
    assert(whole(BodyPieces.read(trickle(bytes(40)), 20, Piece)).sameElements(bytes(20)))
    assert(whole(BodyPieces.read(trickle(bytes(20)), 40, Piece)).sameElements(bytes(20)))
  }

  test("a piece length that is not a power of two is refused") {
    val e = intercept[IllegalArgumentException](BodyPieces.read(trickle(bytes(4)), -1, 24))
    assert(e.getMessage.contains("power of two, not 24"))
  }
}
