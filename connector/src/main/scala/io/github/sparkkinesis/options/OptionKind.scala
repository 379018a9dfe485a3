// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.options

/**
 * What kind of value an option takes, with its bounds. The parsers in [[OptionValues]], the
 * option tables of docs/options.md, the Python builders (through `_registry.json`) and the
 * bad-input tests all read the bounds from here, so they are written once.
 */
sealed abstract class OptionKind(val typeName: String) {

  /** What is allowed, as error messages say it; None where the parsing code words it itself. */
  def allowed: Option[String] = None
}

object OptionKind {

  /** Free text checked by its own parser (a URL, an ARN, a region). */
  case object Text extends OptionKind("string")

  /** A comma-separated list of names. */
  case object NameList extends OptionKind("list")

  /** A position: a word (latest, trim_horizon, ...) or JSON (at_timestamp, offset JSON). */
  case object Position extends OptionKind("json/position")

  case object Bool extends OptionKind("bool") {
    override def allowed: Option[String] = Some("true or false")
  }

  final case class IntRange(min: Int, max: Int) extends OptionKind("int") {
    override def allowed: Option[String] = Some(s"an integer from $min to $max")
  }

  /** A long with a lower bound only. */
  final case class LongAtLeast(min: Long) extends OptionKind("long") {
    override def allowed: Option[String] = Some(s"an integer of at least $min")
  }

  /** A decimal above 0 and at most `max`. */
  final case class PositiveDecimal(max: Double) extends OptionKind("double") {
    override def allowed: Option[String] = Some(s"a decimal number above 0 and at most $max")
  }

  /** A duration such as 400ms or 10s, from `minMs` to `maxMs`. */
  final case class Duration(minMs: Long, maxMs: Long) extends OptionKind("duration") {
    override def allowed: Option[String] =
      Some(s"a duration such as 400ms, 10s, 2m or 1h, from ${minMs}ms to ${maxMs}ms")
  }

  /** A size such as 10mb, above 0 and at most `maxBytes`. */
  final case class Size(maxBytes: Long = Long.MaxValue) extends OptionKind("size") {
    override def allowed: Option[String] = Some("a size such as 512kb, 10mb or 2gb, above 0" +
      (if (maxBytes == Long.MaxValue) "" else s" and at most ${Size.shown(maxBytes)}"))
  }

  object Size {
    /** 5242880 as 5mb: the largest unit that divides the size, as a user would write it. */
    def shown(bytes: Long): String =
      Seq("tb" -> (1L << 40), "gb" -> (1L << 30), "mb" -> (1L << 20), "kb" -> (1L << 10))
        .collectFirst { case (unit, n) if bytes % n == 0 => s"${bytes / n}$unit" }
        .getOrElse(s"${bytes}b")
  }

  /** One of `values`, matched case-insensitively. */
  final case class Choice(values: Seq[String]) extends OptionKind("enum") {
    override def allowed: Option[String] = Some("one of " + values.mkString(", "))
  }
}

/**
 * The ways a query can run; an option lists the ones it applies to. How shards are read
 * (polling, efo) and how the query runs (micro-batch streams, batch reads); a new way (e.g. a
 * real-time mode) is one more object here and in `all`.
 */
sealed abstract class Mode(val name: String)

object Mode {
  case object Polling extends Mode("polling")
  case object Efo extends Mode("efo")
  case object MicroBatch extends Mode("micro-batch")
  case object Batch extends Mode("batch")
  /** Streams with `trigger(realTime=...)`: one task per shard reads directly, nothing is prefetched. */
  case object RealTime extends Mode("real-time")

  val all: Seq[Mode] = Seq(Polling, Efo, MicroBatch, Batch, RealTime)
  val efoOnly: Seq[Mode] = all.filterNot(_ == Polling)
  val pollingOnly: Seq[Mode] = all.filterNot(_ == Efo)
  val batchOnly: Seq[Mode] = Seq(Polling, Efo, Batch)
  /** Options of prefetching, which real-time mode does not do. */
  val notRealTime: Seq[Mode] = all.filterNot(_ == RealTime)
}
