// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.options

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.client.{CredentialsConfig, ProxyConfig}
import io.github.sparkkinesis.errors.KinesisOptionException

class ProxyOptionsSuite extends AnyFunSuite with Matchers {
  private val base = Map("streamName" -> "s", "region" -> "us-east-1")
  private val password = "proxy-PASSW0RD-secret"

  private def proxy(options: (String, String)*): Option[ProxyConfig] =
    KinesisSourceOptions.parse(base ++ options).connection.proxy

  private def failure(options: (String, String)*): KinesisOptionException =
    intercept[KinesisOptionException](KinesisSourceOptions.parse(base ++ options))

  test("no proxy unless proxyHost is given") {
    proxy() shouldBe None
  }

  test("every proxy option is read, for the source and the sink alike") {
    val expected = ProxyConfig("proxy.internal", 3128, Some("reader"), Some(password), Seq("*.local", "10.*"))
    proxy("proxyHost" -> "proxy.internal", "proxyPort" -> "3128", "proxyUsername" -> "reader",
      "proxyPassword" -> password, "nonProxyHosts" -> "*.local|10.*") shouldBe Some(expected)
    KinesisSinkOptions.parse(Map("streamName" -> "s", "region" -> "us-east-1", "proxyHost" -> "proxy.internal",
        "proxyPort" -> "3128", "proxyUsername" -> "reader", "proxyPassword" -> password,
        "nonProxyHosts" -> "*.local, 10.*")).connection.proxy shouldBe Some(expected)
  }

  test("a role is assumed through the proxy as well") {
    KinesisSourceOptions.parse(base ++ Map("proxyHost" -> "10.0.0.1", "proxyPort" -> "8080",
      "roleArn" -> "arn:aws:iam::123456789012:role/r")).connection.credentials match {
      case role: CredentialsConfig.AssumeRole => role.proxy shouldBe Some(ProxyConfig("10.0.0.1", 8080))
      case other => fail(s"not a role: $other")
    }
  }

  test("awslabs' names of the proxy options are read as aliases") {
    proxy("kinesis.sink.proxyAddress" -> "proxy", "kinesis.sink.proxyPort" -> "3128",
      "kinesis.sink.proxyUsername" -> "u", "kinesis.sink.proxyPassword" -> password) shouldBe
      Some(ProxyConfig("proxy", 3128, Some("u"), Some(password)))
  }

  test("the password never shows in toString or errors") {
    val options = KinesisSourceOptions.parse(base ++ Map("proxyHost" -> "proxy", "proxyPort" -> "3128",
      "proxyUsername" -> "u", "proxyPassword" -> password))
    options.connection.toString should (include("proxy:3128") and include("password=<redacted>"))
    options.toString should not include password
    failure("proxyHost" -> "proxy", "proxyPort" -> "3128", "proxyPassword" -> password).getMessage should
      not include password
  }

  test("bad proxy options are refused, naming the option and what is allowed") {
    val scheme = failure("proxyHost" -> "http://proxy:3128", "proxyPort" -> "3128")
    scheme.getCondition shouldBe "KINESIS_INVALID_OPTION_VALUE"
    scheme.getMessage should (include("'proxyHost'") and include("without a scheme or a port"))
    failure("proxyHost" -> "proxy").getCondition shouldBe "KINESIS_MISSING_OPTION"
    failure("proxyHost" -> "proxy", "proxyPort" -> "70000").getMessage should include("an integer from 1 to 65535")
    failure("proxyHost" -> "proxy", "proxyPort" -> "3128", "proxyUsername" -> "u").getCondition shouldBe
      "KINESIS_CONFLICTING_OPTIONS"
    failure("proxyPort" -> "3128").getMessage should include("add proxyHost")
    failure("proxyHost" -> "proxy", "proxyPort" -> "1", "nonProxyHosts" -> "a b").getMessage should
      include("'a b' is not one")
  }

  test("nonProxyHosts patterns match (lower-case) host names as the JVM's http.nonProxyHosts does") {
    val regexes = ProxyConfig("p", 1, nonProxyHosts = Seq("*.Internal", "10.*", "localhost")).nonProxyHostRegexes
    def direct(host: String) = regexes.exists(host.matches)
    direct("kinesis.internal") shouldBe true
    direct("10.1.2.3") shouldBe true
    direct("localhost") shouldBe true
    direct("kinesisXinternal") shouldBe false
    direct("kinesis.us-east-1.amazonaws.com") shouldBe false
  }
}
