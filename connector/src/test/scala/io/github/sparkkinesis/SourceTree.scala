// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis

import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Path, Paths}

import scala.jdk.CollectionConverters._

/**
 * The connector's main sources as the layering checks read them: every source root under
 * `connector/src/main` (the shared `scala/` and each Spark line's folder), each file's package
 * and the connector packages it refers to, outside comments and strings.
 */
object SourceTree {
  /** `io.github.sparkkinesis` itself: the entry points (provider, table, consumer manager). */
  val RootPackage = "(root)"
  /** `org.apache.spark.sql.kinesis`: the one bridge into Spark internals. */
  val SparkBridge = "spark-bridge"

  private val Root = "io.github.sparkkinesis"
  private val Reference = """\bio\.github\.sparkkinesis((?:\.[a-z]\w*)*)\.(\{[^}]*\}|[A-Za-z_]\w*)""".r
  private val BridgeReference = """\borg\.apache\.spark\.sql\.kinesis\b""".r

  /**
   * One main source file: its root folder (`scala`, `spark-4.2`, ...), path and code. Its
   * package is named by its folder below `io/github/sparkkinesis` (`client/wire`), and so are
   * the packages it refers to.
   */
  final case class Source(root: String, path: Path, code: String) {
    lazy val pkg: String = packageOf(code)
    lazy val references: Set[String] = referencedPackages(code) - pkg
    override def toString: String = s"$root/${path.getFileName}"
  }

  /** The repository: the nearest directory up from here holding `marker`. */
  def repository(marker: String): Path = Iterator.iterate(Paths.get(sys.props("user.dir")).toAbsolutePath)(_.getParent)
    .takeWhile(_ != null).find(p => Files.exists(p.resolve(marker)))
    .getOrElse(throw new IllegalStateException(s"$marker not found above ${sys.props("user.dir")}"))

  def read(path: Path): String = new String(Files.readAllBytes(path), StandardCharsets.UTF_8)

  /** The folders of `connector/src/main` that hold Scala sources, by name. */
  def roots(repo: Path): Map[String, Path] = {
    val main = repo.resolve("connector/src/main")
    Files.list(main).iterator().asScala.filter(Files.isDirectory(_)).filter(scalaFiles(_).nonEmpty)
      .map(p => p.getFileName.toString -> p).toMap
  }

  def sources(repo: Path): Seq[Source] = roots(repo).toSeq.flatMap { case (name, root) =>
    scalaFiles(root).map(f => Source(name, root.relativize(f), withoutCommentsAndStrings(read(f))))
  }

  private def scalaFiles(root: Path): Seq[Path] =
    Files.walk(root).iterator().asScala.filter(_.toString.endsWith(".scala")).toSeq

  def withoutCommentsAndStrings(code: String): String =
    code.replaceAll("(?s)\"\"\".*?\"\"\"", "\"\"")
      .replaceAll("\"(?:[^\"\\\\\n]|\\\\.)*\"", "\"\"")
      .replaceAll("(?s)/\\*.*?\\*/", " ")
      .replaceAll("//[^\n]*", "")

  def packageOf(code: String): String = {
    val name = code.split("\n").map(_.trim).filter(_.startsWith("package ")).map(_.stripPrefix("package ").trim)
      .mkString(".")
    if (name == Root) RootPackage
    else if (name == "org.apache.spark.sql.kinesis") SparkBridge
    else if (name.startsWith(Root + ".")) name.stripPrefix(Root + ".").replace('.', '/')
    else name
  }

  /** The packages `code` refers to, besides its own package clause. */
  def referencedPackages(code: String): Set[String] = {
    val body = code.split("\n").filterNot(_.trim.startsWith("package ")).mkString("\n")
    val ours = Reference.findAllMatchIn(body).flatMap { m =>
      val prefix = m.group(1).stripPrefix(".").replace('.', '/')
      m.group(2).stripPrefix("{").stripSuffix("}").split(",").map(_.trim.split("""\s""").head).filter(_.nonEmpty)
        .map { name =>
          val member = name.head.isUpper || name == "_"
          if (member) (if (prefix.isEmpty) RootPackage else prefix)
          else if (prefix.isEmpty) name
          else s"$prefix/$name"
        }
    }.toSet
    val bridge = if (BridgeReference.findFirstIn(body).isDefined) Set(SparkBridge) else Set.empty[String]
    ours ++ bridge
  }

  /** The types (class, object, trait, type) `code` defines. */
  def definedTypes(code: String): Set[String] =
    """\b(?:class|object|trait|type)\s+([A-Z]\w*)""".r.findAllMatchIn(code).map(_.group(1)).toSet

  /** One cycle of `graph` (its packages in order), if it has any. */
  def cycleIn(graph: Map[String, Set[String]]): Option[Seq[String]] = {
    val done = scala.collection.mutable.Set.empty[String]
    def visit(node: String, path: List[String]): Option[Seq[String]] =
      if (path.contains(node)) Some((node :: path.takeWhile(_ != node)).reverse)
      else if (done.contains(node)) None
      else {
        val found = graph.getOrElse(node, Set.empty).toSeq.sorted.iterator.map(visit(_, node :: path)).collectFirst {
          case Some(cycle) => cycle
        }
        done += node
        found
      }
    graph.keys.toSeq.sorted.iterator.map(visit(_, Nil)).collectFirst { case Some(c) => c }
  }
}
