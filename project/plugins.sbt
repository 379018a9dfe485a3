// SPDX-License-Identifier: Apache-2.0
addSbtPlugin("com.eed3si9n" % "sbt-assembly" % "2.3.1")
// make fmt / make lint: Scala formatting with the checked-in .scalafmt.conf.
addSbtPlugin("org.scalameta" % "sbt-scalafmt" % "2.5.4")
// make test's Scala coverage figure: the build reads the JaCoCo agent's data (project/Coverage.scala).
libraryDependencies += "org.jacoco" % "org.jacoco.core" % "0.8.15"
