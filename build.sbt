import sbtassembly.AssemblyPlugin.autoImport._

ThisBuild / organization := "io.github.sparkkinesis"
ThisBuild / version := Versions.project
ThisBuild / scalaVersion := Versions.scala
ThisBuild / javacOptions ++= Seq("--release", "17")
ThisBuild / scalacOptions ++= Seq("-release", "17", "-deprecation", "-feature", "-Xlint:-unused")

/**
 * `make lint` compiles with SPARKKINESIS_LINT=1 set: unused imports, privates and locals are
 * errors there. It compiles into target/lint so the normal build's incremental state stays.
 */
val lintBuild = sys.env.get("SPARKKINESIS_LINT").contains("1")
val lintSettings = if (!lintBuild) Nil else Seq(
  scalacOptions ++= Seq("-Wunused:imports,privates,locals", "-Wconf:cat=unused:e"),
  target := baseDirectory.value / "target" / "lint")

lazy val root = (project in file("."))
  .aggregate(connector)
  .settings(publish / skip := true)

/** Spark opens these JDK internals itself when it launches; forked tests must do the same. */
val sparkJavaOptions = Seq(
  "-XX:+IgnoreUnrecognizedVMOptions",
  "--add-opens=java.base/java.lang=ALL-UNNAMED",
  "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED",
  "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
  "--add-opens=java.base/java.io=ALL-UNNAMED",
  "--add-opens=java.base/java.net=ALL-UNNAMED",
  "--add-opens=java.base/java.nio=ALL-UNNAMED",
  "--add-opens=java.base/java.util=ALL-UNNAMED",
  "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
  "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
  "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
  "--add-opens=java.base/sun.nio.cs=ALL-UNNAMED",
  "--add-opens=java.base/sun.security.action=ALL-UNNAMED",
  "--add-opens=java.base/sun.util.calendar=ALL-UNNAMED",
  "-Djdk.reflect.useDirectMethodHandle=false",
  "-Dio.netty.tryReflectionSetAccessible=true",
  "-Xmx2g"
)

val shadedPrefix = "io.github.sparkkinesis.shaded"

lazy val connector = (project in file("connector"))
  .settings(
    name := "spark-sql-kinesis",
    libraryDependencies ++= Dependencies.spark ++ Dependencies.awsSdk ++ Dependencies.test,
    Test / fork := true,
    Test / javaOptions ++= sparkJavaOptions,
    Test / parallelExecution := false,
    Test / testOptions += Tests.Argument(TestFrameworks.ScalaTest, "-oD"),

    // The assembly carries the SDK and everything it pulls in, renamed so that it can
    // never meet the Netty, Jackson or SDK that Spark (or the user) has on the classpath.
    assembly / assemblyJarName := s"spark-sql-kinesis-assembly_${scalaBinaryVersion.value}-${version.value}.jar",
    assembly / assemblyOption ~= (_.withIncludeScala(false)),
    assembly / test := {},
    assembly / assemblyExcludedJars := (assembly / fullClasspath).value.filter { jar =>
      // SLF4J is Spark's: logging goes to the cluster's log4j configuration.
      jar.data.getName.startsWith("slf4j-")
    },
    // Jackson is not bundled: the connector uses Spark's, and the SDK carries its own copy
    // already renamed under software.amazon.awssdk.thirdparty.
    assembly / assemblyShadeRules := Seq("software.amazon.**", "io.netty.**", "org.reactivestreams.**")
      .map(p => ShadeRule.rename(p -> s"$shadedPrefix.@0").inAll),
    // What is published (publishM2 / publishLocal / publish) is the assembly, under the plain
    // artifact name, with no dependencies in its POM: `--packages` then brings in exactly the
    // shaded jar and nothing that could clash with Spark's own libraries.
    assembly / artifact := (assembly / artifact).value.withClassifier(None),
    addArtifact(assembly / artifact, assembly),
    Compile / packageBin / publishArtifact := false,
    Compile / packageDoc / publishArtifact := false,
    pomPostProcess := { node =>
      import scala.xml._
      import scala.xml.transform._
      new RuleTransformer(new RewriteRule {
        override def transform(n: Node): Seq[Node] = if (n.label == "dependencies") Nil else n
      }).transform(node).head
    },
    assembly / assemblyMergeStrategy := {
      case PathList("META-INF", "services", _*) => MergeStrategy.filterDistinctLines
      case PathList("META-INF", "io.netty.versions.properties") => MergeStrategy.discard
      // GraalVM hints name the unshaded classes; they would only mislead.
      case PathList("META-INF", "native-image", _*) => MergeStrategy.discard
      case "VersionInfo.java" => MergeStrategy.discard
      case PathList("META-INF", xs @ _*) if xs.lastOption.exists(_.endsWith(".SF")) => MergeStrategy.discard
      case PathList("META-INF", xs @ _*) if xs.lastOption.exists(n => n.endsWith(".DSA") || n.endsWith(".RSA")) => MergeStrategy.discard
      case PathList("META-INF", "versions", _*) => MergeStrategy.first
      case "module-info.class" => MergeStrategy.discard
      case PathList(xs @ _*) if xs.last == "module-info.class" => MergeStrategy.discard
      case x => (assembly / assemblyMergeStrategy).value(x)
    },
  )
  .settings(lintSettings)
