// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.errors

import java.util.{Collections, IdentityHashMap}

/**
 * An exception and its causes, outermost first, as far as [[CauseChain.MaxLength]] and never
 * twice the same: `initCause` lets two exceptions name each other, and a walk that followed
 * such a chain to its end would never end.
 */
object CauseChain {
  val MaxLength = 32

  def of(e: Throwable): Seq[Throwable] = {
    val seen = Collections.newSetFromMap(new IdentityHashMap[Throwable, java.lang.Boolean]())
    Iterator.iterate(e)(_.getCause).takeWhile(c => c != null && seen.add(c)).take(MaxLength).toSeq
  }
}
