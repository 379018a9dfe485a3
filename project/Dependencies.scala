// SPDX-License-Identifier: Apache-2.0
import sbt._

/** Library dependencies of the connector. Spark and Scala are provided by the cluster. */
object Dependencies {
  def spark(version: String): Seq[ModuleID] = Seq(
    "org.apache.spark" %% "spark-sql" % version % Provided
  )

  // AWS SDK for Java v2 only. The sync client on the JDK's URL connection serves the
  // control plane and polling; the Netty client is kept for HTTP/2 (enhanced fan-out).
  val awsSdk = Seq(
    "software.amazon.awssdk" % "kinesis" % Versions.awsSdk,
    "software.amazon.awssdk" % "sts" % Versions.awsSdk,
    "software.amazon.awssdk" % "url-connection-client" % Versions.awsSdk,
    "software.amazon.awssdk" % "netty-nio-client" % Versions.awsSdk
  ).map(_.exclude("software.amazon.awssdk", "apache-client"))

  /** Scala 2.12 gets the 2.13 collection APIs the sources use from scala-collection-compat. */
  def scalaCompat(scalaBinary: String): Seq[ModuleID] =
    if (scalaBinary == "2.12") Seq("org.scala-lang.modules" %% "scala-collection-compat" % Versions.scalaCollectionCompat)
    else Nil

  /**
   * The packages scala-collection-compat puts classes in, shaded (renamed) in the 2.12 jar:
   * Spark 3.5 carries its own, older copy.
   */
  def scalaCompatPackages(scalaBinary: String): Seq[String] =
    if (scalaBinary == "2.12") Seq("scala.collection.compat.**", "scala.jdk.**", "scala.util.control.compat.**")
    else Nil

  def test(sparkVersion: String): Seq[ModuleID] = Seq(
    "org.scalatest" %% "scalatest" % Versions.scalatest % Test,
    "org.scalatestplus" %% "scalacheck-1-18" % Versions.scalatestScalacheck % Test,
    "org.apache.spark" %% "spark-sql" % sparkVersion % Test
  )

  /** The benchmark Kinesis (Netty, as the SDK's HTTP/2 client brings it) and its bare SDK client. */
  val benchmarks = Seq(
    "software.amazon.awssdk" % "kinesis" % Versions.awsSdk,
    "software.amazon.awssdk" % "url-connection-client" % Versions.awsSdk,
    "software.amazon.awssdk" % "netty-nio-client" % Versions.awsSdk,
    "org.scalatest" %% "scalatest" % Versions.scalatest % Test
  ).map(_.exclude("software.amazon.awssdk", "apache-client"))
}
