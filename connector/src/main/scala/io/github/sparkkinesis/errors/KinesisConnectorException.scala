package io.github.sparkkinesis.errors

import java.util.{Map => JMap}

import scala.jdk.CollectionConverters._

import org.apache.spark.SparkThrowable

/**
 * Every error this connector raises on purpose. It carries a Spark error condition, so users
 * and tools can match on the condition instead of parsing the message.
 */
class KinesisConnectorException(
    val condition: String,
    val parameters: Map[String, String],
    cause: Throwable = null)
  extends RuntimeException(ErrorConditions.format(condition, parameters), cause)
  with SparkThrowable {

  override def getCondition: String = condition
  override def getSqlState: String = ErrorConditions.sqlState(condition)
  override def getMessageParameters: JMap[String, String] = parameters.asJava
}
