// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.options

import scala.util.control.NonFatal

import io.github.sparkkinesis.errors.KinesisOptionException

/** Which enhanced fan-out consumer name each stream is read with, before the prefix. */
sealed trait ConsumerNameChoice extends Serializable

object ConsumerNameChoice {
  /** No consumerName: the streaming query's id, as the seed docs specify. */
  case object QueryId extends ConsumerNameChoice

  /** One name for every stream. */
  final case class Single(name: String) extends ConsumerNameChoice

  /** A comma-separated list, one name per stream in the order of streamName. */
  final case class PerStream(names: Map[String, String]) extends ConsumerNameChoice
}

/**
 * The enhanced fan-out options (consumerName, consumerNamePrefix, consumerRefreshInterval,
 * requireConsumerDeregistration, consumerARN), parsed and validated when the DataFrame is defined.
 *
 * @param givenArns consumers registered elsewhere (`consumerARN`), by stream: read with as they
 *                  are, never registered nor deregistered; empty when the query names its own
 */
final case class EfoSettings(
    names: ConsumerNameChoice,
    prefix: String,
    refreshIntervalMs: Long,
    requireDeregistration: Boolean,
    givenArns: Map[String, String] = Map.empty) {

  /**
   * The full consumer name (prefix included) that reads `stream`; `queryId` is the streaming
   * query's id, used when no consumerName was given.
   */
  def consumerName(stream: String, queryId: => String): String = {
    val base = names match {
      case ConsumerNameChoice.QueryId => queryId
      case ConsumerNameChoice.Single(name) => name
      case ConsumerNameChoice.PerStream(byStream) =>
        byStream.getOrElse(stream, throw new IllegalArgumentException(s"no consumer name for stream '$stream'"))
    }
    ConsumerNames.validate(prefix + base)
  }
}

object EfoSettings {
  import KinesisOptions._

  /** A streaming query id is a UUID: 36 characters of hex digits and hyphens. */
  private val QueryIdSample = "00000000-0000-0000-0000-000000000000"

  def parse(values: OptionValues, streams: Seq[String]): EfoSettings = {
    val prefix = values.get(ConsumerNamePrefix).getOrElse("").trim
    val names = values.get(ConsumerName).map(_.trim).filter(_.nonEmpty) match {
      case None =>
        check(values, ConsumerNamePrefix, prefix, prefix + QueryIdSample,
          "a prefix that leaves room for the query id (36 characters) as consumer name")
        ConsumerNameChoice.QueryId
      case Some(text) =>
        val list = text.split(",", -1).map(_.trim).toSeq
        val allowed = s"one consumer name for all streams, or a comma-separated list of ${streams.size} " +
          "names, one per stream in the order of streamName"
        if (list.exists(_.isEmpty)) throw values.invalid(ConsumerName, text, allowed + " (a name is empty)")
        list.foreach(n =>
          check(values, ConsumerName, text, prefix + n,
            s"$allowed; with consumerNamePrefix " +
              s"'$prefix', '$prefix$n' is not a valid name: at most 128 letters, digits, '_', '.' or '-'"))
        if (list.size == 1) ConsumerNameChoice.Single(list.head)
        else if (list.size == streams.size) ConsumerNameChoice.PerStream(streams.zip(list).toMap)
        else throw values.invalid(ConsumerName, text, s"$allowed (got ${list.size} names)")
    }
    EfoSettings(
      names = names,
      prefix = prefix,
      refreshIntervalMs = values.durationMs(ConsumerRefreshInterval),
      requireDeregistration = values.boolean(RequireConsumerDeregistration))
  }

  private def check(values: OptionValues, spec: OptionSpec, shown: String, fullName: String,
      allowed: String): Unit =
    try ConsumerNames.validate(fullName)
    catch {
      case e: KinesisOptionException => throw values.invalid(spec, shown, allowed, e)
      case NonFatal(e) => throw values.invalid(spec, shown, allowed, e)
    }
}
