// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.options

import java.util.Locale
import java.util.concurrent.ConcurrentHashMap

import org.apache.spark.internal.Logging

import io.github.sparkkinesis.errors.KinesisErrors
import io.github.sparkkinesis.offsets.{ForeignPositionError, ForeignPositions, KinesisSourceOffset, ShardKey}

/**
 * Another Kinesis connector whose option names a query may keep when it moves here. Databricks'
 * names are this connector's own; the others' are aliases in the registry ([[KinesisOptions]]),
 * never code paths of their own.
 */
sealed abstract class Dialect(val described: String)

object Dialect {
  case object Qubole extends Dialect("qubole's kinesis-sql")
  case object Awslabs extends Dialect("awslabs' spark-sql-kinesis-connector")
}

/**
 * A name `dialect` gives one of this connector's options; `translate` turns its values into
 * this connector's (a value it does not know is passed on as given, and refused by the option's
 * own check, which names the alias as typed).
 */
final case class OptionAlias(name: String, dialect: Dialect, translate: String => String = identity) {
  def key: String = name.toLowerCase(Locale.ROOT)
}

/** An option of another connector with no counterpart here; using it fails with `advice`. */
final case class RetiredOption(name: String, dialect: Dialect, advice: String) {
  def key: String = name.toLowerCase(Locale.ROOT)
}

/** How other connectors' values read here. */
object AliasValues {
  private def lower(v: String) = v.trim.toLowerCase(Locale.ROOT)

  /** A bare number of milliseconds, as the other connectors take durations. */
  val millis: String => String = v => if (v.trim.nonEmpty && v.trim.forall(_.isDigit)) s"${v.trim}ms" else v

  /** A bare number of seconds. */
  val seconds: String => String = v => if (v.trim.nonEmpty && v.trim.forall(_.isDigit)) s"${v.trim}s" else v

  /** awslabs' consumer types. */
  val consumerType: String => String = v =>
    lower(v) match {
      case "getrecords" => "polling"
      case "subscribetoshard" => "efo"
      case _ => v
    }

  /** `aggregationEnabled` true or false. */
  val aggregationEnabled: String => String = v =>
    lower(v) match {
      case "true" => "kpl"
      case "false" => "none"
      case _ => v
    }

  /**
   * Starting positions: the words are this connector's too; awslabs' `AT_TIMESTAMP <ISO-8601>`
   * becomes the at_timestamp JSON.
   */
  /**
   * qubole's `startingposition`: its words, or per-shard positions in the form of its offset log
   * (`{"metadata":{"streamName":…,"batchId":…},"shardId-…":{"iteratorType":…,"iteratorPosition":…}}`),
   * which become this connector's offset JSON, each position continuing exactly where qubole's
   * would have started (LATEST: the records that arrive from now on). Positions it cannot read
   * are refused, naming the option; other JSON is left for the option's own check.
   */
  val quboleStartingPosition: String => String = v =>
    if (!v.trim.startsWith("{")) startingPosition(v)
    else {
      try {
        ForeignPositions.offsetLine(v, "startingposition", System.currentTimeMillis()).map { line =>
          KinesisSourceOffset(line.starts.map { case (shard, position) => ShardKey(line.stream, shard) -> position })
            .json()
        }.getOrElse(v)
      } catch {
        case e: ForeignPositionError =>
          throw KinesisErrors.invalidOptionValue("startingposition", s"'$v'",
            "latest, trim_horizon, earliest, or qubole's per-shard positions " +
              s"""({"metadata":{"streamName":…,"batchId":…},"shardId-…":{"iteratorType":…,"iteratorPosition":…}}): ${e.getMessage}""",
            e)
      }
    }

  val startingPosition: String => String = v => {
    val AtTimestamp = """(?i)\s*at_timestamp\s+(\S+)\s*""".r
    v match {
      case AtTimestamp(time) => s"""{"at_timestamp": "$time", "format": "yyyy-MM-dd'T'HH:mm:ssXXX"}"""
      case _ => v
    }
  }
}

/** Logs each alias once per JVM, naming the option to use instead. */
private[options] object AliasLog extends Logging {
  private val logged = ConcurrentHashMap.newKeySet[String]()

  def used(alias: OptionAlias, option: String): Unit =
    if (logged.add(alias.key)) {
      logInfo(s"Option '${alias.name}' (${alias.dialect.described}) is read as '$option'; " +
        s"name it '$option' to say so directly")
    }
}
