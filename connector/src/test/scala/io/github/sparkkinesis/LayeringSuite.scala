// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis

import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Path, Paths}

import scala.jdk.CollectionConverters._

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

/**
 * Packages depend one way. This reads the connector's main sources, finds which of the
 * connector's packages each one refers to (imports and qualified names, outside comments and
 * strings), and checks the result against the order written in docs/ARCHITECTURE.md, section
 * "Package dependency order": a package may use only packages on lower lines. The order lives
 * in that document alone, so the document and the code cannot drift apart.
 */
class PackageDependencySuite extends AnyFunSuite with Matchers {
  import PackageDependencySuite._

  private lazy val repository: Path = Iterator.iterate(Paths.get(sys.props("user.dir")).toAbsolutePath)(_.getParent)
    .takeWhile(_ != null).find(p => Files.isRegularFile(p.resolve(ArchitectureDoc)))
    .getOrElse(fail(s"$ArchitectureDoc not found above ${sys.props("user.dir")}"))

  private lazy val sourceRoot: Path = repository.resolve("connector/src/main/scala")

  private lazy val uses: Map[String, Map[String, Seq[String]]] = {
    val files = Files.walk(sourceRoot).iterator().asScala.filter(_.toString.endsWith(".scala")).toSeq
    files.flatMap { file =>
      val code = withoutCommentsAndStrings(new String(Files.readAllBytes(file), StandardCharsets.UTF_8))
      val from = packageOf(code)
      referencedPackages(code).filter(_ != from).map(to => (from, to, sourceRoot.relativize(file).toString))
    }.groupBy(_._1).map { case (from, refs) =>
      from -> refs.groupBy(_._2).map { case (to, byTo) => to -> byTo.map(_._3).sorted }
    }
  }

  private lazy val layers: Seq[Set[String]] = {
    val doc = new String(Files.readAllBytes(repository.resolve(ArchitectureDoc)), StandardCharsets.UTF_8)
    dependencyOrder(doc)
  }

  test("the dependency order in docs/ARCHITECTURE.md is readable and names each package once") {
    layers.size should be > 3
    val named = layers.flatten
    named.distinct shouldBe named
  }

  test("every package of the connector has a place in the dependency order") {
    val packages = uses.keySet ++ uses.values.flatMap(_.keySet)
    val unplaced = packages -- layers.flatten
    withClue(s"add these packages to '$OrderHeading' in $ArchitectureDoc: ") {
      unplaced shouldBe empty
    }
  }

  test("packages use only packages below them in the dependency order") {
    val rank = layers.zipWithIndex.flatMap { case (layer, i) => layer.map(_ -> i) }.toMap
    val wrongWay = for {
      (from, targets) <- uses.toSeq
      (to, files) <- targets
      if rank.contains(from) && rank.contains(to) && rank(to) >= rank(from)
    } yield s"$from uses $to (in ${files.mkString(", ")})"
    withClue(s"see '$OrderHeading' in $ArchitectureDoc: ") {
      wrongWay.sorted shouldBe empty
    }
  }

  test("no two packages use each other, directly or through others") {
    val graph = uses.map { case (from, targets) => from -> targets.keySet }
    cycleIn(graph) shouldBe None
  }

  test("the checker itself finds a reference, a cycle, and ignores comments and strings") {
    val code = withoutCommentsAndStrings(
      """package io.github.sparkkinesis.polling
        |// import io.github.sparkkinesis.sink.X
        |/* io.github.sparkkinesis.errors.Y */
        |import io.github.sparkkinesis.client.{KinesisApi, RecordBatch}
        |import io.github.sparkkinesis.{KinesisSchema, time}
        |val s = "io.github.sparkkinesis.source"
        |val b = org.apache.spark.sql.kinesis.KinesisBlockStore
        |""".stripMargin)
    packageOf(code) shouldBe "polling"
    referencedPackages(code) shouldBe Set("client", RootPackage, "time", SparkBridge)
    cycleIn(Map("a" -> Set("b"), "b" -> Set("c"), "c" -> Set("a"))).map(_.toSet) shouldBe Some(Set("a", "b", "c"))
    cycleIn(Map("a" -> Set("b"), "b" -> Set("c"))) shouldBe None
  }
}

object PackageDependencySuite {
  val ArchitectureDoc = "docs/ARCHITECTURE.md"
  val OrderHeading = "Package dependency order"
  /** `io.github.sparkkinesis` itself: the entry points (provider, table, consumer manager). */
  val RootPackage = "(root)"
  /** `org.apache.spark.sql.kinesis`: the one bridge into Spark internals. */
  val SparkBridge = "spark-bridge"

  private val Root = "io.github.sparkkinesis"
  private val Reference = """\bio\.github\.sparkkinesis\.(\{[^}]*\}|[A-Za-z_]\w*)""".r
  private val BridgeReference = """\borg\.apache\.spark\.sql\.kinesis\b""".r

  /** The layers of the order, lowest first: one line of the section's first code block each. */
  def dependencyOrder(doc: String): Seq[Set[String]] = {
    val section = doc.split("\n").dropWhile(l => !(l.startsWith("#") && l.contains(OrderHeading))).drop(1)
    val block = section.dropWhile(l => !l.trim.startsWith("```")).drop(1).takeWhile(l => !l.trim.startsWith("```"))
    block.toSeq.map(_.split("#").head.trim).filter(_.nonEmpty).map(_.split("""[\s,]+""").toSet)
  }

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
    else name.stripPrefix(Root + ".").takeWhile(_ != '.')
  }

  /** The packages `code` refers to, besides its own package clause. */
  def referencedPackages(code: String): Set[String] = {
    val body = code.split("\n").filterNot(_.trim.startsWith("package ")).mkString("\n")
    val ours = Reference.findAllMatchIn(body).flatMap { m =>
      m.group(1).stripPrefix("{").stripSuffix("}").split(",").map(_.trim.split("""\s""").head)
    }.filter(_.nonEmpty).map(name => if (name.head.isUpper || name == "_") RootPackage else name).toSet
    val bridge = if (BridgeReference.findFirstIn(body).isDefined) Set(SparkBridge) else Set.empty[String]
    ours ++ bridge
  }

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
