// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.options

import io.github.sparkkinesis.options.KinesisOptions.{OptionSpec, Usage}
import io.github.sparkkinesis.options.OptionKind.IntRange

/**
 * The registry's options of where credentials come from besides keys and roles, and of the HTTP
 * proxy: part of [[KinesisOptions]] (which extends this), kept here so the registry's file stays
 * readable. Parsed by [[ConnectionOptions]].
 */
private[options] trait CredentialAndProxySpecs {
  private val shared = Usage.ReadAndWrite

  val Profile = OptionSpec("profile", None,
    "A named profile of the AWS shared credentials and config files (`~/.aws/credentials`, `~/.aws/config`, " +
      "or where AWS_SHARED_CREDENTIALS_FILE and AWS_CONFIG_FILE point) of the driver and each executor; read " +
      "again when the files change, so keys rotated in place are used without a restart. Instead of the keys " +
      "options; with roleArn, the credentials the role is assumed with.", usage = shared, emptyMeansNotGiven = true)
  val AwsCredentialsProvider = OptionSpec("awsCredentialsProvider", None,
    "A class implementing the AWS SDK v2's `AwsCredentialsProvider` that supplies the credentials, built in " +
      "the driver and each executor: with a public constructor taking awsCredentialsProviderSecret (a String) or " +
      "a static `create(String)` when that is given, else a public no-argument constructor or a static " +
      "`create()`. Compiled against the SDK as published or against the connector's jar, either works; the " +
      "SDK's own providers may be named too. Instead of the keys options and profile; with roleArn, the " +
      "credentials the role is assumed with. See [Authentication](authentication.md#a-credentials-provider-class).",
    usage = shared, emptyMeansNotGiven = true)
  val AwsCredentialsProviderSecret = OptionSpec("awsCredentialsProviderSecret", None,
    "The String awsCredentialsProvider is built with (its constructor's or `create`'s argument), treated " +
      "as a secret: masked in logs, errors and plans (its name matches Spark's default spark.redaction.regex).",
    secret = true, usage = shared,
    emptyMeansNotGiven = true)
  val ProxyHost = OptionSpec("proxyHost", None,
    "Host name or IP address of an HTTP proxy every AWS call goes through (Kinesis, enhanced fan-out, STS), " +
      "with proxyPort; https endpoints are reached through CONNECT tunnels. Without it, the JVM's and the AWS " +
      "SDK's own proxy settings apply.", usage = shared, emptyMeansNotGiven = true)
  val ProxyPort = OptionSpec("proxyPort", None, "Port of proxyHost.", usage = shared, kind = IntRange(1, 65535),
    emptyMeansNotGiven = true)
  val ProxyUsername = OptionSpec("proxyUsername", None,
    "User name for the proxy's Basic authentication, with proxyPassword.", usage = shared, emptyMeansNotGiven = true)
  val ProxyPassword = OptionSpec("proxyPassword", None,
    "Password for the proxy's Basic authentication; kept secret.", secret = true, usage = shared,
    emptyMeansNotGiven = true)
  val NonProxyHosts = OptionSpec("nonProxyHosts", None,
    "Hosts reached without the proxy, separated by commas or vertical bars (as the JVM's " +
      "http.nonProxyHosts); `*` stands for any characters (`*.internal, 10.*`).", usage = shared,
    emptyMeansNotGiven = true)
}
