// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.wire

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, InputStream}

import org.scalatest.funsuite.AnyFunSuite

/** A body read in pieces gives back exactly the bytes it was read from, however they fall on pieces. */
class BodyPiecesSuite extends AnyFunSuite {
  private val Piece = 16
  private def pool = new PiecePool(Piece, 8)

  private def bytes(n: Int) = Array.tabulate(n)(i => (i * 31 + 7).toByte)

  /** A stream that hands out at most 5 bytes a read, as a socket may. */
  private def trickle(b: Array[Byte]): InputStream = new ByteArrayInputStream(b) {
    override def read(into: Array[Byte], off: Int, len: Int): Int = super.read(into, off, math.min(len, 5))
  }

  private def whole(p: BodyPieces) = p.inputStream().readAllBytes()

  for (n <- Seq(0, 1, 15, 16, 17, 31, 32, 33, 100); declared <- Seq(true, false)) {
    test(s"$n bytes, length ${if (declared) "declared" else "not declared"}: every byte, slice and stream as sent") {
      val body = bytes(n)
      val p = BodyPieces.read(trickle(body), if (declared) n.toLong else -1L, pool)
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
    assert(whole(BodyPieces.read(trickle(bytes(40)), 20, pool)).sameElements(bytes(20)))
    assert(whole(BodyPieces.read(trickle(bytes(20)), 40, pool)).sameElements(bytes(20)))
  }

  test("a released body's whole pieces go back to the pool, and the next body read into them reads as sent") {
    val shared = pool
    val first = BodyPieces.read(trickle(bytes(40)), -1, shared)
    first.release()
    assert(shared.kept == 3, "three whole pieces of 16 (no declared length: the last is whole, 8 bytes used)")
    val other = Array.fill(20)(9.toByte)
    val second = BodyPieces.read(trickle(other), 20, shared)
    assert(shared.kept == 2, "the second body took one whole piece, and a last one of the 4 bytes declared")
    assert(whole(second).sameElements(other))
    assert(second.copy(0, 20).sameElements(other), "no byte of the first body shows in the second")
    second.release()
    assert(shared.kept == 3, "a last piece of the size declared is not kept")
  }

  test("the pool keeps no more than its capacity, and only whole pieces") {
    val shared = new PiecePool(Piece, 2)
    shared.give(Array(new Array[Byte](Piece), new Array[Byte](Piece - 1), new Array[Byte](Piece),
        new Array[Byte](Piece)))
    assert(shared.kept == 2)
    val a = shared.take()
    val b = shared.take()
    assert(a.length == Piece && b.length == Piece && (a ne b))
    assert(shared.kept == 0)
    assert(shared.take().length == Piece, "a new piece when none is kept")
  }

  test("a JVM keeps at most 64 MiB of pieces, or a 32nd of its heap") {
    assert(PiecePool.capacityFor(64 * 1024, maxHeap = 16L << 30) == 1024)
    assert(PiecePool.capacityFor(64 * 1024, maxHeap = 1L << 30) == 512)
  }

  test("a piece length that is not a power of two is refused") {
    val e = intercept[IllegalArgumentException](new PiecePool(24, 1))
    assert(e.getMessage.contains("power of two, not 24"))
  }
}
