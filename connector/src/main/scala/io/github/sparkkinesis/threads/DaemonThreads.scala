// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.threads

import java.util.concurrent.ThreadFactory
import java.util.concurrent.atomic.AtomicInteger

/**
 * Daemon threads named `name`, or `name<n>` when `numbered`: a pool of the connector never
 * keeps a JVM (an executor, a user's driver) alive, and a thread dump says whose each one is.
 */
final class DaemonThreads(name: String, numbered: Boolean = false) extends ThreadFactory {
  private val count = new AtomicInteger()

  override def newThread(r: Runnable): Thread = {
    val t = new Thread(r, if (numbered) s"$name${count.incrementAndGet()}" else name)
    t.setDaemon(true)
    t
  }
}
