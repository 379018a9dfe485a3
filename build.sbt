// SPDX-License-Identifier: Apache-2.0
import sbtassembly.AssemblyPlugin.autoImport._

ThisBuild / organization := "io.github.sparkkinesis"
ThisBuild / version := Publishing.version
ThisBuild / scalaVersion := SparkLines.default.scala
ThisBuild / javacOptions ++= Seq("--release", "17")
ThisBuild / scalacOptions ++= Seq("-release", "17", "-deprecation", "-feature", "-Xlint:-unused")

/**
 * Unused imports, privates and locals are compile errors on the Scala 2.13 lines (Scala 2.12
 * spells these flags differently; its line compiles the same sources). Always on, so the lint
 * is the build that `make test` compiles anyway, not a second compile of its own.
 */
def unusedCodeIsAnError(scalaBinary: String): Seq[String] =
  if (scalaBinary == "2.13") Seq("-Wunused:imports,privates,locals", "-Wconf:cat=unused:e") else Nil

Publishing.buildSettings

lazy val root = (project in file("."))
  .aggregate(connector)
  .settings(publish / skip := true)

// The Spark lines compile one at a time: five Scala compilers at once do not fit sbt's heap.
Global / concurrentRestrictions += Tags.limit(Tags.Compile, 1)

// Every Spark line; `connector` (the newest line) stays the default, so that
// `build/sbt connector/test` and `connector/assembly` mean what they always meant.
lazy val allLines = (project in file("connector/lines"))
  .aggregate(connector, spark41, spark40, spark35_213, spark35_212)
  .disablePlugins(AssemblyPlugin)
  .settings(
    publish / skip := true,
    Compile / packageBin / publishArtifact := false,
    // make notice: NOTICE written from what every line's assembly bundles.
    noticeWrite := {
      val byLine = Seq(
        (connector / assembly / assemblyJarName).value -> (connector / bundledLibraries).value,
        (spark41 / assembly / assemblyJarName).value -> (spark41 / bundledLibraries).value,
        (spark40 / assembly / assemblyJarName).value -> (spark40 / bundledLibraries).value,
        (spark35_213 / assembly / assemblyJarName).value -> (spark35_213 / bundledLibraries).value,
        (spark35_212 / assembly / assemblyJarName).value -> (spark35_212 / bundledLibraries).value
      ).map { case (jar, libraries) => jar.replace("-assembly-" + version.value + ".jar", "") -> libraries }
      val notice = (ThisBuild / baseDirectory).value / "NOTICE"
      IO.write(notice, Notice.render(byLine))
      streams.value.log.info(s"wrote $notice")
    }
  )

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

// SLF4J is Spark's: logging goes to the cluster's log4j configuration.
def leftOutOfAssembly(jar: File): Boolean = jar.getName.startsWith("slf4j-")

lazy val bundledLibraries = taskKey[Seq[Notice.Bundled]]("the libraries this line's assembly jar bundles")
lazy val noticeCheck = taskKey[Unit]("fails when NOTICE does not list a library this line's assembly bundles")
lazy val noticeWrite = taskKey[Unit]("writes NOTICE from what every line's assembly bundles")

// The newest line's unit tests also measure line coverage (connector/coverageReport).
lazy val connector = sparkLineProject(SparkLines.spark42, file("connector")).settings(Coverage.settings)
lazy val spark41 = sparkLineProject(SparkLines.spark41, file("connector/lines/spark-4.1"))
lazy val spark40 = sparkLineProject(SparkLines.spark40, file("connector/lines/spark-4.0"))
lazy val spark35_213 = sparkLineProject(SparkLines.spark35Scala213, file("connector/lines/spark-3.5_2.13"))
lazy val spark35_212 = sparkLineProject(SparkLines.spark35Scala212, file("connector/lines/spark-3.5_2.12"))

/**
 * One Spark line: the shared sources plus the line's shim folders (see project/SparkLines.scala),
 * compiled with the Scala version that Spark release is built with, into the line's own target
 * directory, published as `spark-sql-kinesis-<line>_<scala>`.
 */
def sparkLineProject(line: SparkLine, base: File): Project =
  Project(line.projectId, base).settings(Publishing.lineSettings(line)).settings(
    name := line.artifactName,
    // Published as named: sbt's default module name turns the line's dot into a dash (4-2).
    moduleName := line.artifactName,
    scalaVersion := line.scala,
    scalacOptions ++= unusedCodeIsAnError(line.scalaBinary),
    Compile / unmanagedSourceDirectories := {
      val main = (ThisBuild / baseDirectory).value / "connector" / "src" / "main"
      (main / "scala") +: line.shimFolders.map(main / _)
    },
    Compile / unmanagedResourceDirectories := Seq((ThisBuild / baseDirectory).value / "connector" / "src" / "main" / "resources"),
    // Tests of a line's shim APIs (real-time mode) sit in test folders named as the shims.
    Test / unmanagedSourceDirectories := {
      val test = (ThisBuild / baseDirectory).value / "connector" / "src" / "test"
      (test / "scala") +: line.shimFolders.map(test / _)
    },
    Test / unmanagedResourceDirectories := Seq((ThisBuild / baseDirectory).value / "connector" / "src" / "test" / "resources"),
    libraryDependencies ++= Dependencies.spark(line.spark) ++ Dependencies.scalaCompat(line.scalaBinary) ++
      Dependencies.awsSdk ++ Dependencies.test(line.spark),
    Test / fork := true,
    Test / javaOptions ++= sparkJavaOptions,
    // A long fuzz run (CONTRIBUTING.md, "Fuzzing the decoders"): -Dkinesis.fuzz.* given to sbt reach the forked tests.
    Test / javaOptions ++= sys.props.toSeq.collect { case (k, v) if k.startsWith("kinesis.fuzz.") => s"-D$k=$v" },
    Test / parallelExecution := false,
    Test / testOptions += Tests.Argument(TestFrameworks.ScalaTest, "-oD"),

    // The assembly carries the SDK and everything it pulls in, renamed so that it can
    // never meet the Netty, Jackson or SDK that Spark (or the user) has on the classpath.
    // e.g. spark-sql-kinesis-4.2_2.13-assembly-0.1.0-SNAPSHOT.jar; the Python package picks
    // its jar by this name (python/pyspark_kinesis/_jar.py).
    assembly / assemblyJarName := s"${name.value}_${scalaBinaryVersion.value}-assembly-${version.value}.jar",
    assembly / assemblyOption ~= (_.withIncludeScala(false)),
    assembly / test := {},
    assembly / assemblyExcludedJars := (assembly / fullClasspath).value.filter(jar => leftOutOfAssembly(jar.data)),
    bundledLibraries := {
      val jars = (Runtime / dependencyClasspath).value.map(_.data)
      Notice.bundled(update.value, jars.filterNot(leftOutOfAssembly))
    },
    noticeCheck := {
      val missing = Notice.unlisted(IO.read((ThisBuild / baseDirectory).value / "NOTICE"), bundledLibraries.value)
      if (missing.nonEmpty)
        sys.error(s"NOTICE does not list ${missing.mkString(", ")}, which the ${name.value} assembly jar bundles: " +
          "run `make notice` and commit NOTICE")
    },
    // The jar carries the project's license and NOTICE (the bundled libraries' licenses).
    Compile / resourceGenerators += Def.task {
      val out = (Compile / resourceManaged).value / "META-INF"
      Seq("LICENSE", "NOTICE").map { file =>
        IO.copyFile((ThisBuild / baseDirectory).value / file, out / file)
        out / file
      }
    }.taskValue,
    // Jackson is not bundled: the connector uses Spark's, and the SDK carries its own copy
    // already renamed under software.amazon.awssdk.thirdparty.
    assembly / assemblyShadeRules := (Seq("software.amazon.**", "io.netty.**", "org.reactivestreams.**") ++
      Dependencies.scalaCompatPackages(line.scalaBinary))
      .map(p => ShadeRule.rename(p -> s"$shadedPrefix.@0").inAll),
    // What is published (publishM2 / publishLocal / publish) is the assembly, under the plain
    // artifact name, with no dependencies in its POM: `--packages` then brings in exactly the
    // shaded jar and nothing that could clash with Spark's own libraries.
    assembly / artifact := (assembly / artifact).value.withClassifier(None),
    addArtifact(assembly / artifact, assembly),
    Compile / packageBin / publishArtifact := false,
    pomPostProcess := { node =>
      import scala.xml._
      import scala.xml.transform._
      new RuleTransformer(new RewriteRule {
        override def transform(n: Node): Seq[Node] = if (n.label == "dependencies") Nil else n
      }).transform(node).head
    },
    assembly / assemblyMergeStrategy := {
      // The project's own, as named (the bundled libraries' license files are kept, renamed).
      case PathList("META-INF", "LICENSE" | "NOTICE") => MergeStrategy.preferProject
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

// A memory-speed Kinesis endpoint and a bare SDK client for `make bench`. Not
// aggregated into root: `connector/test` and the published jar never build it.
lazy val benchmarks = (project in file("benchmarks"))
  .settings(
    name := "kinesis-bench",
    publish / skip := true,
    libraryDependencies ++= Dependencies.benchmarks,
    Test / fork := true,
    Test / parallelExecution := false,
    assembly / assemblyJarName := "kinesis-bench.jar",
    assembly / test := {},
    assembly / assemblyMergeStrategy := {
      case PathList("META-INF", "services", _*) => MergeStrategy.filterDistinctLines
      case PathList("META-INF", _*) => MergeStrategy.discard
      case "module-info.class" => MergeStrategy.discard
      case x => (assembly / assemblyMergeStrategy).value(x)
    },
  )
