import sbt._

/** Library dependencies of the connector. Spark and Scala are provided by the cluster. */
object Dependencies {
  val spark = Seq(
    "org.apache.spark" %% "spark-sql" % Versions.spark % Provided
  )

  // AWS SDK for Java v2 only. The sync client on the JDK's URL connection serves the
  // control plane and polling; the Netty client is kept for HTTP/2 (enhanced fan-out).
  val awsSdk = Seq(
    "software.amazon.awssdk" % "kinesis" % Versions.awsSdk,
    "software.amazon.awssdk" % "sts" % Versions.awsSdk,
    "software.amazon.awssdk" % "url-connection-client" % Versions.awsSdk,
    "software.amazon.awssdk" % "netty-nio-client" % Versions.awsSdk
  ).map(_.exclude("software.amazon.awssdk", "apache-client"))

  val test = Seq(
    "org.scalatest" %% "scalatest" % Versions.scalatest % Test,
    "org.apache.spark" %% "spark-sql" % Versions.spark % Test
  )

  /** The benchmark Kinesis (Netty, as the SDK's HTTP/2 client brings it) and its bare SDK client. */
  val benchmarks = Seq(
    "software.amazon.awssdk" % "kinesis" % Versions.awsSdk,
    "software.amazon.awssdk" % "url-connection-client" % Versions.awsSdk,
    "software.amazon.awssdk" % "netty-nio-client" % Versions.awsSdk,
    "org.scalatest" %% "scalatest" % Versions.scalatest % Test
  ).map(_.exclude("software.amazon.awssdk", "apache-client"))
}
