// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import scala.collection.mutable

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

/** Released blocks are removed on a thread of the remover's own, in order, and a failure stops no later removal. */
class BlockRemoverSuite extends AnyFunSuite with Matchers {

  /** A remover whose removals are recorded with the thread that made them; one naming "lost" fails. */
  private final class Recorded {
    val removed = mutable.Buffer.empty[(Seq[String], String)]
    val remover = new BlockRemover("test",
      names =>
        synchronized {
          if (names.contains("lost")) throw new IllegalStateException("block manager master unreachable")
          removed += ((names, Thread.currentThread().getName))
        })
    def batches: Seq[Seq[String]] = synchronized(removed.map(_._1).toList)
  }

  test("removals run in the order asked, on the remover's thread, and close waits for them") {
    val r = new Recorded
    r.remover.remove(Seq("a"))
    r.remover.remove(Nil)
    r.remover.remove(Seq("b", "c"))
    r.remover.close(60000L)
    r.batches shouldBe Seq(Seq("a"), Seq("b", "c"))
    r.removed.map(_._2).distinct shouldBe Seq("kinesis-block-remover-test")
  }

  test("a failed removal is logged and later ones still run; after close, removals are dropped") {
    val r = new Recorded
    r.remover.remove(Seq("lost"))
    r.remover.remove(Seq("after-failure"))
    r.remover.close(60000L)
    r.batches shouldBe Seq(Seq("after-failure"))
    r.remover.remove(Seq("too-late"))
    r.batches shouldBe Seq(Seq("after-failure"))
  }
}
