// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

/**
 * The ids of one task's rows with `recordIds`: `<query id>/<batch>/<partition>/<row>`, the row
 * counted from 0 in the order the task writes them. Spark runs a batch's task again (a failed
 * task, a speculative copy, a batch re-run after a restart from the checkpoint) on the same
 * rows in the same order when its input is read again alike, as a Kinesis source reading exact
 * offsets is: so every copy of a row Kinesis holds carries the same id. Called by the writer's
 * thread only.
 */
private[sink] final class TaskRecordIds(queryId: String, batchId: Long, partitionId: Long) {
  private val prefix = s"$queryId/$batchId/$partitionId/"
  private var row = 0L

  def next(): String = {
    val id = prefix + row
    row += 1
    id
  }
}
