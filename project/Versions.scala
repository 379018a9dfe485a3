// SPDX-License-Identifier: Apache-2.0
/** Every version the build pins, in one place (the Spark and Scala versions of each Spark line are in SparkLines). */
object Versions {
  val project = "0.1.0-SNAPSHOT"

  // One SDK for every line: it is shaded into the connector jar, so it never meets the SDK a
  // Spark release may carry. A release that knows a stream's MaxRecordSizeInKiB
  // (records up to 10 MiB), which the sink reads.
  val awsSdk = "2.36.3"
  val scalatest = "3.2.19"
  // ScalaTest's ScalaCheck bridge for property tests; its version follows ScalaTest's.
  val scalatestScalacheck = "3.2.19.0"
  // 2.13-only collection APIs (scala.jdk.CollectionConverters and the like) on Scala 2.12.
  val scalaCollectionCompat = "2.12.0"
  // The coverage agent of the unit tests (project/Coverage.scala); its analyzer, of the same
  // release, is on the build's own classpath (project/plugins.sbt).
  val jacoco = "0.8.15"
}
