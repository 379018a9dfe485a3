/** Every version the build pins, in one place. */
object Versions {
  val project = "0.1.0-SNAPSHOT"

  // Spark 4.2.0 is the newest Spark whose JVM artifacts and whose Delta Lake release
  // (delta-spark 4.4.0, used by the demo) are both published; pyspark is pinned to match.
  val spark = "4.2.0"
  val scala = "2.13.18"

  val awsSdk = "2.35.4" // the SDK release Spark 4.2 itself is built with
  val scalatest = "3.2.19"
}
