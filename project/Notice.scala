// SPDX-License-Identifier: Apache-2.0
import java.util.zip.ZipFile

import scala.collection.JavaConverters._

import sbt._

/**
 * The NOTICE file: the project's copyright line, every library an assembly jar bundles (with
 * its license, as its POM declares it) and the NOTICE texts those libraries ship. It is
 * written from the build's dependency reports (`make notice`), and `noticeCheck` fails the
 * build when a line bundles a library NOTICE does not list, so none slips in unlisted.
 */
object Notice {

  /** One bundled library: its coordinates, its licenses (name, url) and its own NOTICE texts. */
  final case class Bundled(coordinates: String, licenses: Seq[(String, Option[String])], notices: Seq[String])

  val header: String =
    """spark-kinesis: an Amazon Kinesis connector for Apache Spark Structured Streaming
      |Copyright 2026 The spark-kinesis authors
      |
      |This product is licensed under the Apache License, Version 2.0 (LICENSE).
      |
      |Each assembly jar (io.github.sparkkinesis:spark-sql-kinesis-<line>_<scala>, and the copies
      |the pyspark-kinesis wheel carries) bundles the libraries below, renamed under
      |io.github.sparkkinesis.shaded. Each is distributed under the license named beside it.
      |""".stripMargin

  /**
   * The libraries an assembly bundles: the runtime dependencies whose jars are in
   * `assemblyJars` (the runtime class path less what the assembly leaves out), but Scala.
   */
  def bundled(report: UpdateReport, assemblyJars: Seq[File]): Seq[Bundled] = {
    val jars = assemblyJars.toSet
    val modules = report.configuration(ConfigRef("runtime")).toSeq.flatMap(_.modules).filterNot(_.evicted)
    modules
      .filter(m => m.artifacts.exists { case (_, file) => jars(file) })
      .filterNot(_.module.organization == "org.scala-lang")
      .map { m =>
        val id = m.module
        val files = m.artifacts.collect { case (_, file) if jars(file) => file }
        Bundled(s"${id.organization}:${id.name}:${id.revision}", m.licenses, files.flatMap(noticesIn))
      }
      .sortBy(_.coordinates)
  }

  /** The NOTICE files a library jar carries (META-INF/NOTICE.txt, META-INF/FastDoubleParser-NOTICE, ...), as text. */
  private def noticesIn(jar: File): Seq[String] = {
    val zip = new ZipFile(jar)
    try {
      zip.entries.asScala.toList
        .filter(e => !e.isDirectory && e.getName.toUpperCase.matches("(META-INF/)?[^/]*NOTICE[^/]*"))
        .map(e => IO.readStream(zip.getInputStream(e)).trim)
    } finally zip.close()
  }

  /**
   * NOTICE for every Spark line: each library once, and the lines whose jars carry it when
   * not all do; then each distinct NOTICE text the libraries ship, under the libraries that
   * ship it.
   */
  def render(byLine: Seq[(String, Seq[Bundled])]): String = {
    val all = byLine.flatMap(_._2).groupBy(_.coordinates).toSeq.sortBy(_._1)
    val libraries = all.map { case (coordinates, copies) =>
      val lines = byLine.collect { case (line, libs) if libs.exists(_.coordinates == coordinates) => line }
      val only = if (lines.size == byLine.size) "" else s" [only in ${lines.mkString(", ")}]"
      s"- $coordinates$only: ${licenseText(copies.head.licenses)}"
    }
    val notices = all.flatMap { case (coordinates, copies) => copies.head.notices.map(_ -> coordinates) }
      .groupBy(_._1).toSeq.sortBy(_._2.map(_._2).min)
      .map { case (text, from) => s"--- from ${wrap(shortNames(from.map(_._2).distinct))}:\n\n$text\n" }
    (Seq(header, libraries.mkString("\n"), "",
      "The NOTICE files of the bundled libraries follow, each once.", "") ++ notices).mkString("\n")
  }

  /** `org:a:1, org:b:1` -> `org:{a, b}:1`, for the heading of a NOTICE text many modules ship. */
  private def shortNames(coordinates: Seq[String]): String =
    coordinates.map(_.split(':')).groupBy(c => (c(0), c(2))).toSeq.sortBy(_._1)
      .map { case ((org, version), ids) => s"$org:{${ids.map(_(1)).sorted.mkString(", ")}}:$version" }
      .mkString(", ")

  private def wrap(text: String, width: Int = 96): String =
    text.split(' ').foldLeft(Vector("")) { (lines, word) =>
      if (lines.last.isEmpty) lines.init :+ word
      else if (lines.last.length + 1 + word.length > width) lines :+ word
      else lines.init :+ s"${lines.last} $word"
    }.mkString("\n")

  private def licenseText(licenses: Seq[(String, Option[String])]): String =
    if (licenses.isEmpty) "license not declared in its POM"
    else licenses.map { case (name, url) => name + url.fold("")(u => s" <$u>") }.mkString("; ")

  /** The libraries of one line that `notice` (NOTICE's text) does not list at this version. */
  def unlisted(notice: String, bundled: Seq[Bundled]): Seq[String] = {
    val listed = notice.linesIterator.collect {
      case l if l.startsWith("- ") => l.drop(2).takeWhile(_ != ' ').stripSuffix(":")
    }.toSet
    bundled.map(_.coordinates).filterNot(listed)
  }
}
