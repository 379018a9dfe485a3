// SPDX-License-Identifier: Apache-2.0
/**
 * The Spark lines the connector is built for. Each line is one sbt project compiling the one
 * source tree (`connector/src/main/scala`) plus the small shim folders named here, which hold
 * the few APIs that differ between lines:
 *
 *  - `spark-3.5`: Spark 3.5 only (its `SparkThrowable` has `getErrorClass`, not `getCondition`).
 *  - `spark-4.x`: every 4.x line.
 *  - `spark-4.1`, `spark-4.2`: the real-time mode interfaces, which exist from Spark 4.1 and
 *    whose signatures changed in 4.2 (4.1 only, and 4.2 on, respectively).
 *  - `no-real-time`: the lines without a real-time adapter (3.5, 4.0, and 4.1 for now): the
 *    scan hands Spark the micro-batch stream only.
 *  - `no-stream-keyword`: the lines whose SQL parser has no STREAM for a table function (3.5,
 *    4.0, 4.1): `read_kinesis` reads as a batch there.
 *
 * The default project `connector` is the newest line; the others are named `spark35_212`,
 * `spark35_213`, `spark40` and `spark41`. Artifacts are named per line and Scala version:
 * `spark-sql-kinesis-<line>_<scala>`.
 */
final case class SparkLine(
    projectId: String,
    line: String,
    spark: String,
    scala: String,
    shimFolders: Seq[String]) {
  def scalaBinary: String = scala.split('.').take(2).mkString(".")
  def artifactName: String = s"spark-sql-kinesis-$line"
}

object SparkLines {
  // Each Scala version is the one that Spark release is built with, so the connector never
  // calls a Scala library method newer than the one on the cluster.
  val spark35Scala212 = SparkLine("spark35_212", "3.5", "3.5.9", "2.12.18", Seq("spark-3.5", "no-real-time", "no-stream-keyword"))
  val spark35Scala213 = SparkLine("spark35_213", "3.5", "3.5.9", "2.13.8", Seq("spark-3.5", "no-real-time", "no-stream-keyword"))
  val spark40 = SparkLine("spark40", "4.0", "4.0.4", "2.13.16", Seq("spark-4.x", "no-real-time", "no-stream-keyword"))
  val spark41 = SparkLine("spark41", "4.1", "4.1.3", "2.13.17", Seq("spark-4.x", "spark-4.1", "no-real-time", "no-stream-keyword"))
  val spark42 = SparkLine("connector", "4.2", "4.2.0", "2.13.18", Seq("spark-4.x", "spark-4.2"))

  /** The newest line: the `connector` project, what `build/sbt connector/test` builds. */
  val default: SparkLine = spark42

  val all: Seq[SparkLine] = Seq(spark35Scala212, spark35Scala213, spark40, spark41, spark42)
}
