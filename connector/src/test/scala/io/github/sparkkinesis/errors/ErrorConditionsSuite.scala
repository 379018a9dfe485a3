// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.errors

import java.lang.reflect.Modifier

import scala.jdk.CollectionConverters._

import org.apache.spark.SparkThrowable
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

class ErrorConditionsSuite extends AnyFunSuite with Matchers {

  private val cause = new RuntimeException("the root cause")

  /**
   * Every public factory of [[KinesisErrors]], called with plain arguments. Found by
   * reflection, so a factory added later is checked without editing this suite.
   */
  private lazy val raised: Seq[(String, Throwable with KinesisError)] = {
    val factories = KinesisErrors.getClass.getDeclaredMethods.toSeq.filter { m =>
      Modifier.isPublic(m.getModifiers) && classOf[KinesisError].isAssignableFrom(m.getReturnType)
    }
    factories.map { m =>
      val args = m.getParameterTypes.zipWithIndex.map { case (t, i) =>
        if (t == classOf[String]) s"text$i"
        else if (t == classOf[Int] || t == classOf[Long]) Int.box(7 + i)
        else if (t == classOf[Boolean]) java.lang.Boolean.TRUE
        else if (t == classOf[Seq[_]]) Seq(s"first$i", s"second$i")
        else if (t == classOf[Option[_]]) Some(s"some$i")
        else if (t == classOf[Throwable]) cause
        else fail(s"${m.getName} takes a ${t.getName}; teach this suite a sample value for it")
      }
      m.getName -> m.invoke(KinesisErrors, args.asInstanceOf[Array[AnyRef]]: _*)
        .asInstanceOf[Throwable with KinesisError]
    }.sortBy(_._1)
  }

  test("the factories were found") {
    raised.map(_._1) should contain allOf ("missingOption", "invalidOptionValue", "unknownOption",
    "offsetMalformed", "offsetVersionUnsupported", "recordsUnavailable")
  }

  test("every condition raised exists in the error-conditions file, and every one there is raised") {
    raised.foreach { case (factory, e) =>
      withClue(s"$factory: ") { ErrorConditions.names should contain(e.getCondition) }
    }
    raised.map(_._2.getCondition).toSet shouldBe ErrorConditions.names
  }

  test("every message fills every placeholder and starts with its condition") {
    raised.foreach { case (factory, e) =>
      withClue(s"$factory: ${e.getMessage}\n") {
        e.getMessage should startWith(s"[${e.getCondition}] ")
        e.getMessage should not include regex("<[A-Za-z_]+>")
        e.getMessageParameters.asScala.values.filter(_.nonEmpty).foreach(v => e.getMessage should include(v))
      }
    }
  }

  test("every error is a SparkThrowable with a condition and an SQL state") {
    raised.foreach { case (factory, e) =>
      withClue(s"$factory: ") {
        e shouldBe a[SparkThrowable]
        e.getCondition should fullyMatch regex "KINESIS_[A-Z_]+"
        e.getSqlState should fullyMatch regex "[0-9A-Z]{5}"
      }
    }
  }

  test("an error keeps the failure it was raised for") {
    raised.filter(_._2.getCause != null).foreach { case (_, e) => e.getCause should be theSameInstanceAs cause }
    raised.map(_._1) should contain("apiFailed")
    raised.toMap.apply("apiFailed").getCause should be theSameInstanceAs cause
  }

  test("option errors are IllegalArgumentExceptions, which PySpark raises as its own") {
    Seq(KinesisErrors.invalidOptionValue("maxFetchRate", "'9'", "at most 2.0"),
      KinesisErrors.unknownOption("x", None), KinesisErrors.missingOption("streamName", "give one"),
      KinesisErrors.conflictingOptions(Seq("awsAccessKey", "awsSecretKey"), "give both")).foreach {
      _ shouldBe an[IllegalArgumentException]
    }
  }

  test("messages read as the user sees them") {
    KinesisErrors.invalidOptionValue("maxFetchRate", "'2.5'", "a decimal number above 0 and at most 2.0")
      .getMessage shouldBe "[KINESIS_INVALID_OPTION_VALUE] Invalid value '2.5' for option 'maxFetchRate': " +
      "a decimal number above 0 and at most 2.0."
    KinesisErrors.unknownOption("streamname2", Some("streamName")).getMessage should include(
      "Unknown option 'streamname2' for the kinesis data source. Did you mean 'streamName'? Options")
    KinesisErrors.unknownOption("foo", None).getMessage should include(
      "Unknown option 'foo' for the kinesis data source. Options")
  }
}
