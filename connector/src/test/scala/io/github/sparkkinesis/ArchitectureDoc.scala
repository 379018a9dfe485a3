// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis

/**
 * What `docs/ARCHITECTURE.md` states that the code can be checked against: the package
 * dependency order, the packages table, the components it names, and the Spark lines of the
 * real-time mode section. `project/SparkLines.scala` is read as text (it is build code).
 */
object ArchitectureDoc {
  val DocPath = "docs/ARCHITECTURE.md"
  val OrderHeading = "Package dependency order"
  val PackagesHeading = "Packages"
  val RealTimeHeading = "Real-time mode"
  val SparkLinesPath = "project/SparkLines.scala"

  /** The lines of the section under a `#` heading, up to the next heading of the same level. */
  def section(doc: String, heading: String): Seq[String] = {
    val lines = doc.split("\n").toSeq
    val start = lines.indexWhere(l => l.startsWith("#") && l.dropWhile(_ == '#').trim == heading)
    if (start < 0) Nil
    else {
      val level = lines(start).takeWhile(_ == '#')
      lines.drop(start + 1).takeWhile(l => !(l.startsWith("#") && l.takeWhile(_ == '#').length <= level.length))
    }
  }

  /** The layers of the order, lowest first: one line of the section's first code block each. */
  def dependencyOrder(doc: String): Seq[Set[String]] = {
    val block = section(doc, OrderHeading).dropWhile(l => !l.trim.startsWith("```")).drop(1)
      .takeWhile(l => !l.trim.startsWith("```"))
    block.map(_.split("#").head.trim).filter(_.nonEmpty).map(_.split("""[\s,]+""").toSet)
  }

  /** The packages the Packages section's first table lists, named as [[SourceTree]] names them. */
  def listedPackages(doc: String): Seq[String] = {
    val table = section(doc, PackagesHeading).dropWhile(!_.startsWith("|")).takeWhile(_.startsWith("|")).drop(2)
    table.map(_.split("\\|")(1).trim).map { cell =>
      if (cell.contains("(spark-bridge)")) SourceTree.SparkBridge
      else if (cell == SourceTree.RootPackage) SourceTree.RootPackage
      else cell.stripPrefix("`").stripSuffix("`").stripSuffix("/")
    }
  }

  /**
   * The type names the document gives in backticks (`Prefetcher`, `OptionSpec.sessionConf`,
   * `*DecodingSuite`), each with whether it stands for every name ending so.
   */
  def componentNames(doc: String): Set[(String, Boolean)] =
    """`(\*?)([A-Z][A-Za-z0-9]*)(?:\.[A-Za-z0-9]+)*(?:\([^`]*\))?`""".r.findAllMatchIn(doc)
      .map(m => (m.group(2), m.group(1).nonEmpty)).toSet

  /** The Spark lines `text` says have real-time mode: "the Spark 4.2 jar", "Spark 4.1+" (4.1 and later). */
  def realTimeLinesClaimed(text: String): Seq[String] =
    """Spark ([34]\.\d)(?: jar|\+| and later)""".r.findAllMatchIn(text).map(_.group(0)).toSeq

  /** The lines `text` says have no real-time adapter: "the Spark lines without them (3.5, 4.0, 4.1)". */
  def linesWithoutRealTime(text: String): Set[String] =
    """without them \(([^)]*)\)""".r.findFirstMatchIn(text).toSeq
      .flatMap(m => """[34]\.\d""".r.findAllIn(m.group(1))).toSet

  /** A Spark line of the build: its version and the folders it compiles besides `scala/`. */
  final case class BuiltLine(line: String, folders: Seq[String]) {
    def realTime: Boolean = !folders.contains("no-real-time")
  }

  def builtLines(sparkLines: String): Seq[BuiltLine] =
    """SparkLine\(\s*"[^"]*",\s*"([^"]+)",\s*"[^"]*",\s*"[^"]*",\s*Seq\(([^)]*)\)\)""".r.findAllMatchIn(sparkLines)
      .map(m => BuiltLine(m.group(1), "\"([^\"]+)\"".r.findAllMatchIn(m.group(2)).map(_.group(1)).toSeq)).toSeq
}
