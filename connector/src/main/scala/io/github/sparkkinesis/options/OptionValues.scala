// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.options

import java.text.{ParseException, SimpleDateFormat}
import java.util.Locale

import com.fasterxml.jackson.databind.ObjectMapper
import org.apache.spark.network.util.JavaUtils

import io.github.sparkkinesis.errors.KinesisErrors

/**
 * Parsers for option values; each failure names the option as the user typed it, the value
 * and what is allowed. `options` are matched case-insensitively. `sessionConf` holds the Spark
 * session's settings of options that have one (`OptionSpec.sessionConf`), which apply where the
 * query does not give the option.
 */
private[sparkkinesis] final class OptionValues(options: Map[String, String],
    sessionConf: Map[String, String] = Map.empty) {
  import KinesisOptions.OptionSpec

  // By the key of the option each name stands for: its own name, or another connector's
  // (OptionAliases), whose value is translated; names no option has are kept as given.
  private val resolved: Map[String, (String, String)] = options.map { case (k, v) =>
    KinesisOptions.resolve(k) match {
      case Some((spec, alias)) => spec.key -> (k -> alias.fold(v)(_.translate(v)))
      case None => k.toLowerCase(Locale.ROOT) -> (k -> v)
    }
  }
  private val raw: Map[String, String] = resolved.map { case (key, (_, v)) => key -> v }
  private val typed: Map[String, String] = resolved.map { case (key, (k, _)) => key -> k }

  private def fromSession(spec: OptionSpec): Option[String] =
    if (raw.contains(spec.key)) None else spec.sessionConf.flatMap(sessionConf.get)

  /** The option's name as the user typed it, the Spark conf it came from, or as documented. */
  def name(spec: OptionSpec): String =
    typed.getOrElse(spec.key, if (fromSession(spec).isDefined) s"${spec.sessionConf.get} (Spark conf)" else spec.name)

  /** The value the user gave, else the session's, else the option's default. */
  def get(spec: OptionSpec): Option[String] = raw.get(spec.key).orElse(fromSession(spec)).orElse(spec.default)

  def isSet(spec: OptionSpec): Boolean = raw.contains(spec.key)

  def shown(spec: OptionSpec, value: String): String =
    if (spec.secret) "<redacted>" else s"'$value'"

  def invalid(spec: OptionSpec, value: String, allowed: String, cause: Throwable = null) =
    KinesisErrors.invalidOptionValue(name(spec), shown(spec, value), allowed, cause)

  def required(spec: OptionSpec, hint: String): String =
    get(spec).map(_.trim).filter(_.nonEmpty).getOrElse(throw KinesisErrors.missingOption(name(spec), hint))

  /** Digits, allowing thousands separators as the seed docs write them ("10,000"). */
  private def integerText(spec: OptionSpec): String = {
    val text = get(spec).get.trim
    if (text.matches("[0-9]{1,3}(,[0-9]{3})+")) text.replace(",", "") else text
  }

  /** The spec's kind, which the calling parser expects; a mismatch is a bug in the registry. */
  private def kindOf[K <: OptionKind](spec: OptionSpec)(implicit tag: scala.reflect.ClassTag[K]): K =
    spec.kind match {
      case k: K => k
      case other => throw new IllegalStateException(s"option ${spec.name} is registered as $other")
    }

  def int(spec: OptionSpec): Int = {
    val OptionKind.IntRange(min, max) = kindOf[OptionKind.IntRange](spec)
    val text = integerText(spec)
    val allowed = spec.kind.allowed.get
    val value =
      try text.toInt
      catch { case e: NumberFormatException => throw invalid(spec, text, allowed, e) }
    if (value < min || value > max) throw invalid(spec, text, allowed)
    value
  }

  def long(spec: OptionSpec): Long = {
    val OptionKind.LongAtLeast(min) = kindOf[OptionKind.LongAtLeast](spec)
    val text = integerText(spec)
    val allowed = spec.kind.allowed.get
    val value =
      try text.toLong
      catch { case e: NumberFormatException => throw invalid(spec, text, allowed, e) }
    if (value < min) throw invalid(spec, text, allowed)
    value
  }

  /** A positive decimal no larger than the spec's maximum. */
  def positiveDouble(spec: OptionSpec): Double = {
    val OptionKind.PositiveDecimal(max) = kindOf[OptionKind.PositiveDecimal](spec)
    val text = get(spec).get.trim
    val allowed = spec.kind.allowed.get
    val value =
      try text.toDouble
      catch { case e: NumberFormatException => throw invalid(spec, text, allowed, e) }
    if (!(value > 0 && value <= max)) throw invalid(spec, text, allowed)
    value
  }

  /** A duration string such as 400ms, 10s, 2m, 1h, in milliseconds, within the spec's bounds. */
  def durationMs(spec: OptionSpec): Long = {
    val OptionKind.Duration(minMs, maxMs) = kindOf[OptionKind.Duration](spec)
    val text = get(spec).get.trim
    val allowed = spec.kind.allowed.get
    val ms =
      try JavaUtils.timeStringAsMs(text)
      catch {
        case e: IllegalArgumentException => throw invalid(spec, text, allowed, e) // NumberFormatException too
      }
    if (ms < minMs || ms > maxMs) throw invalid(spec, text, allowed)
    ms
  }

  /** A byte string such as 10mb or 2gb, in bytes; at least one byte and at most the spec's maximum. */
  def bytes(spec: OptionSpec): Long = {
    val OptionKind.Size(max) = kindOf[OptionKind.Size](spec)
    val text = get(spec).get.trim
    val allowed = spec.kind.allowed.get
    // NumberFormatException for a malformed size, IllegalArgumentException for one past Long.MaxValue.
    val value =
      try JavaUtils.byteStringAsBytes(text)
      catch {
        case e: IllegalArgumentException => throw invalid(spec, text, allowed, e)
      }
    if (value <= 0 || value > max) throw invalid(spec, text, allowed)
    value
  }

  def boolean(spec: OptionSpec): Boolean = {
    kindOf[OptionKind.Bool.type](spec)
    get(spec).get.trim.toLowerCase(Locale.ROOT) match {
      case "true" => true
      case "false" => false
      case other => throw invalid(spec, other, spec.kind.allowed.get)
    }
  }

  /** One of the spec's words, matched case-insensitively. */
  def choice(spec: OptionSpec): String = {
    val OptionKind.Choice(choices) = kindOf[OptionKind.Choice](spec)
    val text = get(spec).get.trim
    choices.find(_.equalsIgnoreCase(text)).getOrElse(throw invalid(spec, text, spec.kind.allowed.get))
  }
}

private[sparkkinesis] object OptionValues {
  /** The seed docs' "Java default format for timestamps": 06/25/2020 10:23:45 PDT. */
  val DefaultTimestampFormat = "MM/dd/yyyy HH:mm:ss z"

  private val mapper = new ObjectMapper()

  /**
   * Parses `{"at_timestamp": "...", "format": "..."}` into epoch milliseconds. Formats are
   * `java.text.SimpleDateFormat` patterns, which also accept zone names (PDT) for `Z` when
   * parsing, as the seed docs' example relies on.
   */
  def parseAtTimestamp(json: String): Either[String, Long] = {
    val node =
      try Option(mapper.readTree(json))
      catch { case _: Exception => None }
    node.filter(_.isObject) match {
      case None => Left("not a JSON object")
      case Some(obj) =>
        val ts = Option(obj.get("at_timestamp")).filter(_.isTextual).map(_.asText)
        val fmt = Option(obj.get("format")).filter(_.isTextual).map(_.asText).getOrElse(DefaultTimestampFormat)
        ts match {
          case None => Left("the JSON has no string field \"at_timestamp\"")
          case Some(text) =>
            try {
              val format = new SimpleDateFormat(fmt, Locale.US)
              format.setLenient(false)
              Right(format.parse(text).getTime)
            } catch {
              case _: IllegalArgumentException => Left(s""""$fmt" is not a valid date format pattern""")
              case _: ParseException => Left(s""""$text" does not match the format "$fmt"""")
            }
        }
    }
  }
}
