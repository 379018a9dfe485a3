// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.tools

import scala.util.control.NonFatal

import io.github.sparkkinesis.client.KinesisApi
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}

/**
 * How far behind the tip of its shard each position is: Kinesis's millisBehindLatest for one
 * GetRecords of one record from there. Two calls per shard, whatever its backlog.
 */
object ShardLag {
  /** Per shard still to be read, the milliseconds behind, or why they could not be found. */
  def of(api: KinesisApi, positions: Map[ShardKey, ShardPosition]): Map[ShardKey, Either[String, Long]] =
    positions.collect {
      case (key, position) if !position.isInstanceOf[ShardPosition.ShardEnd] =>
        key -> (try {
          val iterator = api.shardIterator(key.stream, key.shardId, position)
          Right(api.getRecords(key.stream, iterator, 1, None).millisBehindLatest)
        } catch {
          case NonFatal(e) => Left(Option(e.getMessage).getOrElse(e.getClass.getSimpleName).split("\n").head)
        })
    }
}
