// SPDX-License-Identifier: Apache-2.0
import java.io.File

import scala.jdk.CollectionConverters._

import org.jacoco.core.analysis.{Analyzer, CoverageBuilder, ICounter}
import org.jacoco.core.tools.ExecFileLoader
import sbt._
import sbt.Keys._

/**
 * Line coverage of the connector's code by its unit tests. The forked test JVM runs with
 * JaCoCo's agent, which records which bytecode ran without a second, instrumented compile;
 * `coverageReport` then matches that record against the compiled classes and their line
 * tables. Scala's line tables make this a line figure of the Scala sources (synthetic code
 * the compiler adds carries the line of what it was made for).
 */
object Coverage {
  private val JacocoAgent = config("jacocoAgent").hide

  val coverageReport = taskKey[Unit]("prints the unit tests' line coverage (the last test run's) and writes a per-package table")

  private val ownPackages = "io.github.sparkkinesis.*:org.apache.spark.sql.kinesis.*"

  private def execFile(target: File): File = target / "jacoco" / "unit-tests.exec"

  def settings: Seq[Setting[_]] = Seq(
    ivyConfigurations += JacocoAgent,
    libraryDependencies += ("org.jacoco" % "org.jacoco.agent" % Versions.jacoco % JacocoAgent).classifier("runtime"),
    Test / javaOptions += {
      val agentJar = update.value.select(configurationFilter(JacocoAgent.name)).head
      s"-javaagent:$agentJar=destfile=${execFile(target.value)},append=false,includes=$ownPackages"
    },
    coverageReport := {
      val log = streams.value.log
      val exec = execFile(target.value)
      if (!exec.exists()) sys.error(s"no coverage data in $exec: run ${thisProject.value.id}/test first")
      val lines = lineCounts(exec, (Compile / classDirectory).value)
      val table = target.value / "jacoco" / "line-coverage.txt"
      IO.write(table, lines.map { case (pkg, c) => f"${percent(c)}%6s  ${c.getCoveredCount}%6d / ${c.getTotalCount}%6d  $pkg" }
        .mkString("", "\n", "\n"))
      val covered = lines.map(_._2.getCoveredCount).sum
      val total = lines.map(_._2.getTotalCount).sum
      val summary = f"scala coverage: ${100.0 * covered / total}%.1f%% of $total lines (unit tests, ${name.value})"
      // make test prints this line again at its end (make coverage-summary).
      IO.write(target.value / "jacoco" / "summary.txt", summary + "\n")
      log.info(s"$summary; per package: $table")
    }
  )

  private def percent(counter: ICounter): String =
    if (counter.getTotalCount == 0) "-" else f"${100.0 * counter.getCoveredCount / counter.getTotalCount}%.1f%%"

  /** Line counters per package, of every class the compile wrote. */
  private def lineCounts(exec: File, classes: File): Seq[(String, ICounter)] = {
    val loader = new ExecFileLoader()
    loader.load(exec)
    val builder = new CoverageBuilder()
    new Analyzer(loader.getExecutionDataStore, builder).analyzeAll(classes)
    builder.getBundle("connector").getPackages.asScala.toSeq
      .map(p => p.getName.replace('/', '.') -> p.getLineCounter)
      .sortBy(_._1)
  }
}
