// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.errors

import java.util.{Map => JMap}

import scala.jdk.CollectionConverters._

/**
 * Every error this connector raises on purpose. It carries a Spark error condition, so users
 * and tools can match on the condition instead of parsing the message.
 */
trait KinesisError extends SparkThrowableShim { self: Throwable =>
  def parameters: Map[String, String]

  override def getSqlState: String = ErrorConditions.sqlState(condition)
  override def getMessageParameters: JMap[String, String] = parameters.asJava
}

/** A failure while the connector runs: Kinesis refused a call, a checkpoint cannot be read. */
class KinesisConnectorException(
    val condition: String,
    val parameters: Map[String, String],
    cause: Throwable = null)
  extends RuntimeException(ErrorConditions.format(condition, parameters), cause) with KinesisError

/**
 * An option the user gave is wrong, or the columns of a DataFrame written to Kinesis are. An
 * IllegalArgumentException, so PySpark raises it as its own IllegalArgumentException with
 * this message rather than as a raw Java error.
 */
class KinesisOptionException(
    val condition: String,
    val parameters: Map[String, String],
    cause: Throwable = null)
  extends IllegalArgumentException(ErrorConditions.format(condition, parameters), cause) with KinesisError
