// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.options

import java.util.Locale

import io.github.sparkkinesis.errors.KinesisErrors
import io.github.sparkkinesis.options.OptionKind._

/**
 * The registry of every option the connector knows: its name (as the Databricks Runtime docs
 * spell it), its default, what it does, and whether it applies to reading, writing or both.
 * Parsing, validation, the option tables of docs/options.md and the Python builders all
 * follow this list.
 */
object KinesisOptions
  extends WhereToReadSpecs with CredentialAndProxySpecs with HowToReadSpecs with SinkSpecs {

  /** Where an option applies: reading (`spark.readStream`), writing (`df.write(Stream)`), or both. */
  sealed abstract class Usage(val reads: Boolean, val writes: Boolean, val described: String)
  object Usage {
    case object Read extends Usage(true, false, "reading from Kinesis (spark.readStream)")
    case object Write extends Usage(false, true, "writing to Kinesis (df.write or df.writeStream)")
    case object ReadAndWrite extends Usage(true, true, "reading and writing")
  }

  /**
   * Everything about one option. Adding one is one line in the spec trait of its topic:
   * `val Name = declare(OptionSpec("name", Some("default"), "What it does.", kind = IntRange(1, 100)))`,
   * plus `usage`, `modes` or `secret` when they differ from a read option of every mode. `all`,
   * the docs and the Python builders follow from it (`make docs-options` writes the latter two).
   *
   * @param shownDefault the default as the options page says it, where it is not a plain value
   * @param writeDescription what the option does when writing, where it differs
   * @param emptyMeansNotGiven an empty value counts as not given (for options filled from an
   *                           unset environment variable); other options refuse an empty value
   * @param sessionConf a Spark conf that sets the option for every query of a session (or a
   *                    cluster) that does not give it
   */
  final case class OptionSpec(
      name: String,
      default: Option[String],
      description: String,
      secret: Boolean = false,
      usage: Usage = Usage.Read,
      kind: OptionKind = Text,
      modes: Seq[Mode] = Mode.all,
      shownDefault: Option[String] = None,
      writeDescription: Option[String] = None,
      emptyMeansNotGiven: Boolean = false,
      sessionConf: Option[String] = None) {
    def key: String = name.toLowerCase(Locale.ROOT)
  }

  /** Every option, in the order declared (the order of the options page's tables). */
  val all: Seq[OptionSpec] = declaredSpecs

  /**
   * Source options of streams that cannot apply in real-time mode (`trigger(realTime=...)`),
   * where one task per shard reads directly with no prefetching: a query that sets one is
   * refused when it starts rather than run with the option silently ignored.
   */
  def notInRealTime: Seq[OptionSpec] =
    sourceOptions.filter(o => o.modes.contains(Mode.MicroBatch) && !o.modes.contains(Mode.RealTime))

  /** The options of the source (read-only and shared ones). */
  def sourceOptions: Seq[OptionSpec] = all.filter(_.usage.reads)

  /** The options of the sink (write-only and shared ones). */
  def sinkOptions: Seq[OptionSpec] = all.filter(_.usage.writes)

  private val byKey: Map[String, OptionSpec] = all.map(o => o.key -> o).toMap

  def find(name: String): Option[OptionSpec] = byKey.get(name.toLowerCase(Locale.ROOT))

  /** Names of the source's options, for the Python builders' drift test (called through py4j). */
  def names: Array[String] = sourceOptions.map(_.name).toArray

  /** Names of the sink's options, for the Python builders' drift test (called through py4j). */
  def sinkNames: Array[String] = sinkOptions.map(_.name).toArray

  def isSecret(name: String): Boolean = resolve(name).exists(_._1.secret)

  /** The Spark confs that set options for a whole session. */
  def sessionConfs: Seq[String] = all.flatMap(_.sessionConf)

  /**
   * The known option closest to a misspelt one, if any is close enough to be a likely typo.
   * Options of the given use come first: a typo in a write is meant as a write option.
   */
  def suggest(name: String, usage: Usage = Usage.ReadAndWrite): Option[String] = {
    val key = name.toLowerCase(Locale.ROOT)
    val preferred = all.filter(o => (usage.reads && o.usage.reads) || (usage.writes && o.usage.writes))
    val found = Seq(preferred, all).iterator.flatMap { candidates =>
      val (best, distance) = candidates.map(o => o -> editDistance(key, o.key)).minBy(_._2)
      if (likelyTypo(key, distance)) Some(best.name) else None
    }
    if (found.hasNext) Some(found.next()) else None
  }

  /**
   * Rejects option names that are unknown, or known but not used where they were given (a
   * sink option in a read, a source option in a write). `passThrough` are names Spark itself
   * reads from the same map (checkpointLocation on a stream writer). Names are reported as the
   * user wrote them; values are never shown, so a misspelt secret option stays secret.
   */
  private[sparkkinesis] def rejectMisplaced(
      options: Map[String, String],
      usage: Usage,
      passThrough: Set[String] = Set.empty): Unit = {
    val pass = passThrough.map(_.toLowerCase(Locale.ROOT))
    val typed = options.keys.filterNot(k => pass.contains(k.toLowerCase(Locale.ROOT))).toSeq
    val resolved = typed.map { k =>
      resolve(k) match {
        case None =>
          OptionAliases.findRetired(k) match {
            case Some(r) => throw KinesisErrors.optionWithoutCounterpart(k, r.dialect.described, r.advice)
            case None => throw KinesisErrors.unknownOption(k, suggest(k, usage))
          }
        case Some((spec, _)) if (usage.reads && !spec.usage.reads) || (usage.writes && !spec.usage.writes) =>
          throw KinesisErrors.optionNotApplicable(k, spec.usage.described, usage.described)
        case Some((spec, alias)) =>
          alias.foreach(AliasLog.used(_, spec.name))
          (spec, k, alias.fold(options(k))(_.translate(options(k))).trim)
      }
    }
    // One option under several names is fine when they agree (awslabs documents both
    // kinesis.region and kinesis.kinesisRegion, and users set both); values are never shown.
    resolved.groupBy(_._1).collectFirst {
      case (spec, twice) if twice.map(_._3).distinct.size > 1 =>
        throw KinesisErrors.conflictingOptions(twice.map(_._2).sorted,
          s"they are names of one option, ${spec.name} (other connectors' names are read as aliases), with " +
            "different values: give it once")
    }
  }

  /** The option `name` stands for, by its own name or another connector's, and the alias when it was one. */
  def resolve(name: String): Option[(OptionSpec, Option[OptionAlias])] =
    find(name).map(_ -> None).orElse(OptionAliases.find(name).map { case (spec, alias) => spec -> Some(alias) })

  /** The option of `among` closest to a misspelt one, if any is close enough. */
  def suggest(name: String, among: Seq[OptionSpec]): Option[String] = {
    val key = name.toLowerCase(Locale.ROOT)
    val (best, distance) = among.map(o => o -> editDistance(key, o.key)).minBy(_._2)
    if (likelyTypo(key, distance)) Some(best.name) else None
  }

  /** A name this many edits from a known one is a likely typo of it: 2 edits, or one per 4 characters. */
  val SuggestWithinEdits = 2
  val SuggestCharactersPerEdit = 4

  private def likelyTypo(typed: String, distance: Int): Boolean =
    distance <= math.max(SuggestWithinEdits, typed.length / SuggestCharactersPerEdit)

  private[options] def editDistance(a: String, b: String): Int = {
    val d = Array.tabulate(a.length + 1, b.length + 1)((i, j) => if (i == 0) j else if (j == 0) i else 0)
    for (i <- 1 to a.length; j <- 1 to b.length) {
      val cost = if (a(i - 1) == b(j - 1)) 0 else 1
      d(i)(j) = math.min(math.min(d(i - 1)(j) + 1, d(i)(j - 1) + 1), d(i - 1)(j - 1) + cost)
    }
    d(a.length)(b.length)
  }
}
