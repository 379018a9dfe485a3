// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.wire

/**
 * Whole pieces of `pieceLength` bytes that answers have been read into and their records read
 * out of, kept (up to `capacity`) for the next answers of the JVM. Polling reads a backfill's
 * answers in bursts (every shard's call comes due at once), and a young collection during a
 * burst found tens of megabytes of pieces still being read, more than its survivor space held:
 * it moved them to the old generation, which then filled and started G1's concurrent cycles
 * (make bench, row `polling`). Pieces kept here are allocated once and stay in the old
 * generation; a collection does not copy them.
 */
private[client] final class PiecePool(val pieceLength: Int, val capacity: Int) {
  require(Integer.bitCount(pieceLength) == 1, s"a piece length is a power of two, not $pieceLength")
  require(capacity >= 0, s"a pool keeps 0 pieces or more, not $capacity")

  // Last in, first out: the piece taken next is the one most recently written, likely still in a cache.
  private val free = new java.util.ArrayDeque[Array[Byte]]()

  /** A whole piece: a kept one, or a new one when none is. */
  def take(): Array[Byte] = {
    val kept = synchronized(free.pollLast())
    if (kept != null) kept else new Array[Byte](pieceLength)
  }

  /** Keeps the whole pieces of `pieces` while there is room; the caller must not use any of them again. */
  def give(pieces: Array[Array[Byte]]): Unit = synchronized {
    var i = 0
    while (i < pieces.length && free.size < capacity) {
      if (pieces(i).length == pieceLength) free.addLast(pieces(i))
      i += 1
    }
  }

  /** How many pieces are kept now. */
  def kept: Int = synchronized(free.size)
}

private[client] object PiecePool {

  /**
   * The most a JVM keeps: 64 MiB, or a 32nd of its heap if that is less. A burst of a prefetch
   * task reading 8 answers of up to 10 MiB at once fits about that; the pieces it keeps are
   * held outside Spark's storage and execution memory, where Spark leaves a part of the heap
   * for such structures.
   */
  def capacityFor(pieceLength: Int, maxHeap: Long = Runtime.getRuntime.maxMemory()): Int =
    (math.min(64L << 20, maxHeap / 32) / pieceLength).toInt
}
