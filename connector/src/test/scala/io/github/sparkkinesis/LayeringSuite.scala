// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis

import java.nio.file.{Files, Path}

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

/**
 * The code is layered as docs/ARCHITECTURE.md says, over every source root of
 * `connector/src/main` (the shared `scala/`, each Spark line's folder, the bridge under
 * `org.apache.spark`): packages depend one way, in the order of the section "Package dependency
 * order" (a package may use only packages on lower lines; the order lives in that document
 * alone); the AWS SDK and Spark's private APIs each have one adapter; and what the document
 * names (packages, components, the Spark lines of real-time mode) exists as it says.
 */
class LayeringSuite extends AnyFunSuite with Matchers {
  import ArchitectureDoc._
  import LayeringSuite._
  import SourceTree._

  private lazy val repo: Path = repository(DocPath)
  private lazy val doc: String = read(repo.resolve(DocPath))
  private lazy val files: Seq[Source] = sources(repo)
  private lazy val layers: Seq[Set[String]] = dependencyOrder(doc)
  private lazy val lines: Seq[BuiltLine] = builtLines(read(repo.resolve(SparkLinesPath)))

  /**
   * The package of the order a folder's code belongs to: the longest one named that holds it, so
   * the order decides which sub-packages are rooms of their own (`client/wire`) and which count
   * with their parent (`source/realtime` with `source`).
   */
  private def room(pkg: String): String =
    layers.flatten.filter(named => pkg == named || pkg.startsWith(named + "/")).sortBy(-_.length).headOption.getOrElse(
      pkg)

  /** Per package, the packages it uses and the files that use them. */
  private lazy val uses: Map[String, Map[String, Seq[String]]] =
    files.flatMap(f => f.references.map(room).filter(_ != room(f.pkg)).map(to => (room(f.pkg), to, f.toString)))
      .groupBy(_._1).map { case (from, refs) =>
        from -> refs.groupBy(_._2).map { case (to, byTo) => to -> byTo.map(_._3).sorted }
      }

  test("every source root is the shared one or a Spark line's folder, and every line's folder exists") {
    val folders = lines.flatMap(_.folders).toSet
    lines.map(_.line).toSet should contain allOf ("3.5", "4.2")
    roots(repo).keySet -- folders - "scala" shouldBe empty
    folders.filterNot(f => Files.isDirectory(repo.resolve(s"connector/src/main/$f"))) shouldBe empty
    files.map(_.root).toSet should contain allOf ("scala", "spark-3.5", "spark-4.x", "spark-4.2", "no-real-time")
  }

  test("each source file sits in the folder of its package") {
    val misplaced = files.filter { f =>
      val declared = f.code.split("\n").map(_.trim).filter(_.startsWith("package ")).map(_.stripPrefix("package "))
      declared.mkString(".").replace('.', '/') != Option(f.path.getParent).fold("")(_.toString)
    }
    misplaced.map(_.toString) shouldBe empty
  }

  test("the dependency order in docs/ARCHITECTURE.md is readable and names each package once") {
    layers.size should be > 3
    val named = layers.flatten
    named.distinct shouldBe named
  }

  test("every package of the connector has a place in the dependency order") {
    val packages = (files.map(_.pkg).toSet ++ files.flatMap(_.references)).map(room)
    withClue(s"add these packages to '$OrderHeading' in $DocPath: ") {
      packages -- layers.flatten shouldBe empty
    }
  }

  test("packages use only packages below them in the dependency order, in every source root") {
    val rank = layers.zipWithIndex.flatMap { case (layer, i) => layer.map(_ -> i) }.toMap
    val wrongWay = for {
      (from, targets) <- uses.toSeq
      (to, where) <- targets
      if rank.contains(from) && rank.contains(to) && rank(to) >= rank(from)
    } yield s"$from uses $to (in ${where.mkString(", ")})"
    withClue(s"see '$OrderHeading' in $DocPath: ") {
      wrongWay.sorted shouldBe empty
    }
  }

  test("no two packages use each other, directly or through others") {
    cycleIn(uses.map { case (from, targets) => from -> targets.keySet }) shouldBe None
  }

  test("the AWS SDK is used in client/ alone, Spark's private APIs in the bridge alone") {
    def outside(pkg: String, api: String) =
      files.filter(f => f.pkg != pkg && api.r.findFirstIn(f.code).isDefined).map(_.toString)
    files.filter(f =>
      f.pkg != "client" && !f.pkg.startsWith("client/") &&
        """\bsoftware\.amazon\.awssdk\b""".r.findFirstIn(f.code).isDefined).map(_.toString) shouldBe empty
    outside(SparkBridge, """\borg\.apache\.spark\.(storage|rpc|scheduler)\b|\bSparkEnv\b""") shouldBe empty
  }

  test("the packages table of docs/ARCHITECTURE.md lists every package, each once, and no other") {
    val listed = listedPackages(doc)
    listed.distinct shouldBe listed
    listed.toSet shouldBe files.map(f => room(f.pkg)).toSet
  }

  test("every component docs/ARCHITECTURE.md names is a type of the sources") {
    val testRoot = repo.resolve("connector/src/test") // the shared suites and each Spark line's
    val testCode = Files.walk(testRoot).toArray.map(_.asInstanceOf[Path]).filter(_.toString.endsWith(".scala"))
      .map(f => withoutCommentsAndStrings(read(f)))
    val defined = (files.map(_.code) ++ testCode).flatMap(definedTypes).toSet
    val missing = componentNames(doc).collect {
      case (name, false) if !defined(name) && !ExternalNames(name) => name
      case (suffix, true) if !defined.exists(_.endsWith(suffix)) => s"*$suffix"
    }
    missing shouldBe empty
  }

  test("the Spark lines real-time mode runs on are those with a real-time adapter in the build") {
    val text = section(doc, RealTimeHeading).mkString(" ")
    val withAdapter = lines.filter(_.realTime).map(_.line).toSet
    linesWithoutRealTime(text) shouldBe lines.map(_.line).toSet -- withAdapter
    realTimeLinesClaimed(text) should not be empty
    realTimeLinesClaimed(text).filterNot { claim =>
      val line = claim.stripPrefix("Spark ").take(3)
      if (claim.endsWith(" jar")) withAdapter(line) else lines.filter(_.line >= line).forall(_.realTime)
    } shouldBe empty
  }

  test("the wire decoders use only the calls' data types and pure code, and only the SDK adapter uses them") {
    // So the decoders leave by deleting client/wire and the SDK adapter's few uses of it.
    val wire = "client/wire"
    uses.getOrElse(wire, Map.empty).keySet -- Set("client", "kpl", "errors") shouldBe empty
    uses.collect { case (from, targets) if targets.contains(wire) => from }.toSet shouldBe Set("client/sdk")
  }

  test("the calls the connector makes use no room of client/, so fakes need no SDK") {
    uses.getOrElse("client", Map.empty).keySet.filter(_.startsWith("client/")) shouldBe empty
    files.filter(f => f.pkg == "client" && """\bsoftware\.amazon\.awssdk\b""".r.findFirstIn(f.code).isDefined)
      .map(_.toString) shouldBe empty
  }

  test("the checks find references, cycles, listed packages and the lines a text claims") {
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
    packageOf("package io.github.sparkkinesis.client.wire\n") shouldBe "client/wire"
    referencedPackages(withoutCommentsAndStrings(
        """import io.github.sparkkinesis.client.wire.{CborReader, JsonReader}
          |import io.github.sparkkinesis.client.http.SyncHttp
          |import io.github.sparkkinesis.client.sdk
          |import io.github.sparkkinesis.client.CredentialsConfig._
          |""".stripMargin)) shouldBe Set("client/wire", "client/http", "client/sdk", "client")
    cycleIn(Map("a" -> Set("b"), "b" -> Set("c"), "c" -> Set("a"))).map(_.toSet) shouldBe Some(Set("a", "b", "c"))
    cycleIn(Map("a" -> Set("b"), "b" -> Set("c"))) shouldBe None
    listedPackages("## Packages\n\n| package | owns |\n|---|---|\n| (root) | x |\n| `kpl/` | y |\n" +
      "| `org.apache.spark.sql.kinesis` (spark-bridge) | z |\n\n| `x` | other table |\n") shouldBe
      Seq(RootPackage, "kpl", SparkBridge)
    realTimeLinesClaimed("runs on Spark 4.1+ (the Spark 4.2 jar; Spark 4.1's differ)") shouldBe
      Seq("Spark 4.1+", "Spark 4.2 jar")
    linesWithoutRealTime("the builds for the Spark lines without them (3.5, 4.0, 4.1) compile") shouldBe
      Set("3.5", "4.0", "4.1")
    componentNames("`Prefetcher`, `OptionSpec.sessionConf`, `*DecodingSuite`, `Hit rate limit`, `client/`") shouldBe
      Set(("Prefetcher", false), ("OptionSpec", false), ("DecodingSuite", true))
  }
}

object LayeringSuite {
  /** Names ARCHITECTURE.md gives that are not the connector's: Spark's and Kinesis's. */
  private val ExternalNames = Set("UnsafeRow", "MaxRecordSizeInKiB", "Records")
}
