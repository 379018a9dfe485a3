// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import java.util.concurrent.{ExecutorService, Executors, ScheduledExecutorService, TimeUnit}

import io.github.sparkkinesis.threads.DaemonThreads

/**
 * The threads of one writer's batcher: put threads (`kinesis-put-<n>`, at most `maxCalls`,
 * started as calls need them) and the linger timer (`kinesis-put-linger`). Started and
 * stopped by the batcher's strand only; the threads themselves touch none of its state.
 */
private[sink] final class PutThreads(maxCalls: Int) {
  private var pool: ExecutorService = _
  private var timer: ScheduledExecutorService = _

  /** Runs `job` on a put thread. */
  def execute(job: Runnable): Unit = {
    if (pool == null) pool = Executors.newFixedThreadPool(maxCalls, new DaemonThreads("kinesis-put-", numbered = true))
    pool.execute(job)
  }

  /** Runs `tick` every `periodMs` from now on; a second call does nothing. */
  def startTimer(periodMs: Long, tick: Runnable): Unit = if (timer == null) {
    timer = Executors.newSingleThreadScheduledExecutor(new DaemonThreads("kinesis-put-linger"))
    timer.scheduleWithFixedDelay(tick, periodMs, periodMs, TimeUnit.MILLISECONDS)
  }

  /** Interrupts the calls in flight; drops those not started. */
  def stopCalls(): Unit = if (pool != null) pool.shutdownNow()

  def stopAll(): Unit = {
    if (timer != null) timer.shutdownNow()
    stopCalls()
  }
}
