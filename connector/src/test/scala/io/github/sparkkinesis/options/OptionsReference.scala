// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.options

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, Paths}
import java.util.{LinkedHashMap => JMap}

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.ObjectMapper

import io.github.sparkkinesis.AWSKinesisConsumerManager
import io.github.sparkkinesis.efo.ConsumerRegistry
import io.github.sparkkinesis.errors.{ErrorConditions, KinesisErrors}
import io.github.sparkkinesis.options.KinesisOptions.{OptionSpec, Usage}
import io.github.sparkkinesis.options.OptionKind._

/**
 * What follows from the option registry: the option tables of `docs/options.md` (between
 * markers) and `python/pyspark_kinesis/_registry.json`, which the Python builders and the
 * bad-input tests read. `make docs-options` runs `main` to write both; `OptionsReferenceSuite`
 * fails when the committed files differ from what the registry gives.
 */
object OptionsReference {

  val OptionsDocPath = "docs/options.md"
  val JsonPath = "python/pyspark_kinesis/_registry.json"

  /** The generated blocks of the options page, each between its begin and end marker. */
  val Blocks: Seq[(String, () => String)] = Seq("source" -> (() => sourceTable), "sink" -> (() => sinkTable),
    "aliases" -> (() => aliasTable), "retired" -> (() => retiredTable))

  def begin(block: String): String = s"<!-- options:$block:begin -->"
  def end(block: String): String = s"<!-- options:$block:end -->"

  private val Note =
    "<!-- generated from KinesisOptions.scala by `make docs-options`: edit the registry, not this table -->"

  def sourceTable: String =
    table(KinesisOptions.sourceOptions.map(o => (o, shownDefault(o), o.description)))

  /**
   * The write-only options, and the shared ones that mean something else when writing
   * (streamName); the connection options are the source's.
   */
  def sinkTable: String = {
    val rows = table(KinesisOptions.sinkOptions.flatMap { o =>
      if (o.usage == Usage.Write) Some((o, shownDefault(o), o.description))
      else o.writeDescription.map(d => (o, o.default.getOrElse("none"), d))
    })
    val shared = KinesisOptions.sinkOptions.filter(o => o.usage != Usage.Write && o.writeDescription.isEmpty)
    rows + s"\n| ${shared.map(_.name).mkString(", ")} | as for the source | as for the source | " +
      "How to reach AWS and authenticate, as for the source (see [Source options](#source-options) and " +
      "[Authentication](authentication.md)). |"
  }

  /** Each option other connectors name otherwise, with their names (OptionAliases). */
  def aliasTable: String = {
    def names(spec: OptionSpec, dialect: Dialect) =
      OptionAliases.of(spec).filter(_.dialect == dialect).map(a => s"`${a.name}`").mkString(", ")
    val lines = KinesisOptions.all.filter(o => OptionAliases.of(o).nonEmpty).map { o =>
      s"| ${o.name} | ${names(o, Dialect.Qubole)} | ${names(o, Dialect.Awslabs)} |"
    }
    (Seq(Note, "| option | qubole's kinesis-sql | awslabs' connector |", "|---|---|---|") ++ lines).mkString("\n")
  }

  /** Other connectors' options with no counterpart here, and what to do instead. */
  def retiredTable: String = {
    val lines = OptionAliases.retired.map(r => s"| `${r.name}` | ${r.dialect.described} | ${r.advice} |")
    (Seq(Note, "| option | of | instead |", "|---|---|---|") ++ lines).mkString("\n")
  }

  private def table(rows: Seq[(OptionSpec, String, String)]): String = {
    val lines = rows.map { case (spec, default, description) =>
      s"| ${spec.name} | $default | ${allowedShort(spec.kind)} | ${modesNote(spec)}$description |"
    }
    (Seq(Note, "| option | default | allowed | what it does |", "|---|---|---|---|") ++ lines).mkString("\n")
  }

  private def shownDefault(spec: OptionSpec): String =
    spec.shownDefault.orElse(spec.default).getOrElse("none")

  /** The modes an option is limited to, as the start of its description. */
  private def modesNote(spec: OptionSpec): String = {
    val missing = Mode.all.filterNot(spec.modes.contains)
    if (spec.usage == Usage.Write || missing.isEmpty) ""
    else if (missing == Seq(Mode.Polling)) "Enhanced fan-out (`efo`) only. "
    else if (missing == Seq(Mode.Efo)) "Polling only. "
    else if (missing == Seq(Mode.MicroBatch, Mode.RealTime)) "Batch reads only. "
    else if (missing == Seq(Mode.RealTime)) "Not in [real-time mode](real-time.md). "
    else s"Only ${spec.modes.map(_.name).mkString(", ")}. "
  }

  /** The bounds as a table cell. */
  def allowedShort(kind: OptionKind): String = kind match {
    case IntRange(min, max) => s"$min to $max"
    case LongAtLeast(min) => s"at least $min"
    case PositiveDecimal(max) => s"above 0, at most $max"
    case Duration(minMs, maxMs) => s"${durationShown(minMs)} to ${durationShown(maxMs)}"
    case Size(max) if max == Long.MaxValue => "a size above 0"
    case Size(max) => s"above 0, at most ${Size.shown(max)}"
    case Choice(values) => values.map(v => s"`$v`").mkString(", ")
    case Bool => "`true`, `false`"
    case NameList => "names, comma-separated"
    case Position => "a word or JSON"
    case Text => "text"
  }

  private def durationShown(ms: Long): String =
    Seq("h" -> 3600000L, "m" -> 60000L, "s" -> 1000L)
      .collectFirst { case (unit, n) if ms % n == 0 => s"${ms / n}$unit" }
      .getOrElse(s"${ms}ms")

  /** The registry as JSON: one object per option, bounds in ms (durations) and bytes (sizes). */
  def registryJson: String = {
    val options = KinesisOptions.all.map { o =>
      val m = new JMap[String, Any]()
      m.put("name", o.name)
      m.put("usage", o.usage match { case Usage.Read => "read"; case Usage.Write => "write"; case _ => "both" })
      m.put("type", o.kind.typeName)
      m.put("default", o.default.orNull)
      bounds(o.kind).foreach { case (k, v) => m.put(k, v) }
      o.kind.allowed.foreach(m.put("allowedText", _))
      m.put("modes", o.modes.map(_.name).asJava)
      m.put("secret", o.secret)
      m.put("emptyMeansNotGiven", o.emptyMeansNotGiven)
      m.put("description", o.description)
      o.writeDescription.foreach(m.put("writeDescription", _))
      valueRules(o).foreach { case (k, v) => m.put(k, v) }
      m
    }
    val root = obj(
      "generatedBy" -> "make docs-options, from connector/.../options/KinesisOptions.scala",
      "units" -> obj("duration" -> "ms", "size" -> "bytes"),
      "options" -> options.asJava,
      "suggestion" -> obj("withinEdits" -> KinesisOptions.SuggestWithinEdits,
        "charactersPerEdit" -> KinesisOptions.SuggestCharactersPerEdit, "text" -> KinesisErrors.DidYouMean),
      "consumerManager" -> consumerManager)
    new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n"
  }

  /** What the parsers accept besides the kind's bounds, for the Python builders to check alike. */
  private def valueRules(spec: OptionSpec): Seq[(String, Any)] = spec match {
    case KinesisOptions.StreamName => Seq("pattern" -> KinesisSourceOptions.StreamNamePattern.regex)
    case KinesisOptions.InitialPosition => Seq("words" -> KinesisSourceOptions.InitialPositionWords.map(_._1).asJava)
    case KinesisOptions.EndingPosition => Seq("words" -> KinesisSourceOptions.EndingPositionWords.asJava)
    case _ => Nil
  }

  /**
   * The consumer manager's rules and the messages of the errors it raises, for the Python
   * manager, which makes the same calls through boto3 where there is no JVM.
   */
  private def consumerManager: JMap[String, Any] = obj(
    "options" -> AWSKinesisConsumerManager.Options.map(_.name).asJava,
    "activationTimeoutMs" -> ConsumerRegistry.DefaultActivationTimeoutMs,
    "pollIntervalMs" -> ConsumerRegistry.DefaultPollIntervalMs,
    "consumerNames" -> obj("allowedCharacters" -> ConsumerNames.AllowedCharacters,
      "maxLength" -> ConsumerNames.MaxLength, "reasons" -> obj(ConsumerNames.Reasons.toSeq.sortBy(_._1): _*)),
    "errors" -> obj(ConsumerManagerConditions.map(c => c -> ErrorConditions.template(c)): _*))

  private val ConsumerManagerConditions = Seq("KINESIS_API_FAILED", "KINESIS_EFO_CONSUMER_NAME_INVALID",
    "KINESIS_EFO_CONSUMER_NOT_ACTIVE", "KINESIS_EFO_CONSUMER_NOT_FOUND", "KINESIS_STREAM_NOT_FOUND",
    "KINESIS_UNKNOWN_OPTION", "KINESIS_INVALID_OPTION_VALUE")

  private def obj(entries: (String, Any)*): JMap[String, Any] = {
    val m = new JMap[String, Any]()
    entries.foreach { case (k, v) => m.put(k, v) }
    m
  }

  private def bounds(kind: OptionKind): Seq[(String, Any)] = kind match {
    case IntRange(min, max) => Seq("min" -> min, "max" -> max)
    case LongAtLeast(min) => Seq("min" -> min)
    case PositiveDecimal(max) => Seq("above" -> 0, "max" -> max)
    case Duration(minMs, maxMs) => Seq("min" -> minMs, "max" -> maxMs)
    case Size(max) => Seq("above" -> 0) ++ (if (max == Long.MaxValue) Nil else Seq("max" -> max))
    case Choice(values) => Seq("allowed" -> values.asJava)
    case Bool => Seq("allowed" -> Seq("true", "false").asJava)
    case _ => Nil
  }

  /** `page` with every generated block replaced by what the registry gives. */
  def optionsDocWith(page: String): String = Blocks.foldLeft(page) { case (text, (block, render)) =>
    val (b, e) = (text.indexOf(begin(block)), text.indexOf(end(block)))
    require(b >= 0 && e > b, s"$OptionsDocPath has no ${begin(block)} ... ${end(block)} markers")
    text.substring(0, b + begin(block).length) + "\n" + render() + "\n" + text.substring(e)
  }

  /** The repository's root: the nearest directory up from here holding build.sbt. */
  def repoRoot: Path = Iterator.iterate(Paths.get("").toAbsolutePath)(_.getParent)
    .takeWhile(_ != null).find(p => Files.exists(p.resolve("build.sbt")))
    .getOrElse(throw new IllegalStateException("not inside the repository (no build.sbt above)"))

  def read(path: String): String = new String(Files.readAllBytes(repoRoot.resolve(path)), UTF_8)

  def main(args: Array[String]): Unit = {
    val root = repoRoot
    Files.write(root.resolve(OptionsDocPath), optionsDocWith(read(OptionsDocPath)).getBytes(UTF_8))
    Files.write(root.resolve(JsonPath), registryJson.getBytes(UTF_8))
    println(s"wrote the option tables of $OptionsDocPath and $JsonPath from the registry")
  }
}
