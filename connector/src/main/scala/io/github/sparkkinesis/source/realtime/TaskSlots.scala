// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source.realtime

import org.apache.spark.SparkContext
import org.apache.spark.internal.Logging

import io.github.sparkkinesis.errors.KinesisErrors

/**
 * A real-time batch runs one task per readable shard, all at once and for the whole batch:
 * with fewer task slots than that, the tasks that find no slot wait until the others end and
 * the batch reads some shards late or never. The query fails instead, saying how many slots it
 * needs and how many there are. The sink writes inside the same tasks (real-time mode plans no
 * shuffle), so it needs no slots of its own.
 *
 * Executors of a cluster may still be registering when the query starts: the check waits up to
 * `registrationWaitMs` for enough of them. Under dynamic allocation the slots grow with demand,
 * so it only warns.
 */
private[realtime] object TaskSlots extends Logging {
  val RegistrationWaitMs = 15000L
  private val PollMs = 200L

  def check(sc: SparkContext, needed: Int, streams: Seq[String], available: SparkContext => Int,
      registrationWaitMs: Long = RegistrationWaitMs): Unit = {
    if (needed == 0) return
    val dynamic = sc.getConf.getBoolean("spark.dynamicAllocation.enabled", defaultValue = false)
    val deadline = System.nanoTime() + (if (sc.isLocal || dynamic) 0L else registrationWaitMs * 1000000L)
    var slots = available(sc)
    while (slots < needed && System.nanoTime() < deadline) {
      Thread.sleep(PollMs)
      slots = available(sc)
    }
    if (slots < needed) {
      if (dynamic) {
        logWarning(s"The real-time query on ${streams.mkString(",")} needs $needed task slots at once and the " +
          s"cluster has $slots now; dynamic allocation must add executors before every shard is read")
      } else {
        throw KinesisErrors.realTimeNotEnoughSlots(streams, needed, slots, describe(sc))
      }
    }
  }

  private def describe(sc: SparkContext): String =
    s"master ${sc.master}, spark.task.cpus ${sc.getConf.getInt("spark.task.cpus", 1)}"
}
