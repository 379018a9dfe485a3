// SPDX-License-Identifier: Apache-2.0
package org.apache.spark.sql.kinesis

import org.apache.spark.SparkContext

/**
 * How many tasks the cluster can run at once: Spark knows (executors alive x cores per
 * executor / spark.task.cpus, or the cores of local mode) but keeps it `private[spark]`,
 * hence this object's package, part of the one bridge into Spark internals.
 */
object KinesisTaskSlots {
  def available(sc: SparkContext): Int = sc.maxNumConcurrentTasks(sc.resourceProfileManager.defaultResourceProfile)
}
