// SPDX-License-Identifier: Apache-2.0
import sbt._
import sbt.Keys._

/**
 * What the published artifacts say about themselves (the POM that Maven Central requires),
 * and where a release goes. `make release VERSION=x.y.z` sets SPARK_KINESIS_VERSION (the one
 * version otherwise is `Versions.project`) and SPARK_KINESIS_STAGING, the local Maven
 * repository the release is staged in; only then are scaladoc jars built and published.
 */
object Publishing {
  val homepageUrl = "https://github.com/sparkkinesis/spark-kinesis"

  val version: String = sys.env.get("SPARK_KINESIS_VERSION").filter(_.nonEmpty).getOrElse(Versions.project)

  val staging: Option[File] = sys.env.get("SPARK_KINESIS_STAGING").filter(_.nonEmpty).map(file)

  val buildSettings: Seq[Setting[_]] = Seq(
    ThisBuild / description := "Amazon Kinesis Data Streams source and sink for Apache Spark Structured Streaming " +
      "(polling and enhanced fan-out), with the AWS SDK shaded in",
    ThisBuild / homepage := Some(url(homepageUrl)),
    ThisBuild / licenses := List("Apache-2.0" -> url("https://www.apache.org/licenses/LICENSE-2.0.txt")),
    ThisBuild / scmInfo := Some(ScmInfo(url(homepageUrl), s"scm:git:$homepageUrl.git")),
    ThisBuild / developers := List(
      Developer("sparkkinesis", "The spark-kinesis authors", "", url(homepageUrl))),
    ThisBuild / versionScheme := Some("early-semver"),
  )

  /** Per Spark line: the POM's description, and the staging repository with scaladoc when releasing. */
  def lineSettings(line: SparkLine): Seq[Setting[_]] = Seq(
    description := s"${(ThisBuild / description).value}; for Spark ${line.line} on Scala ${line.scalaBinary}",
    Compile / packageDoc / publishArtifact := staging.isDefined,
    // Test delegates to Compile: without this the tests' scaladoc would be published too.
    Test / packageDoc / publishArtifact := false,
    publishTo := staging.map(dir => "release-staging" at dir.toURI.toString),
    publish / checksums := Seq("md5", "sha1"),
  )
}
