// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.options

import io.github.sparkkinesis.options.KinesisOptions.{OptionSpec, Usage}
import io.github.sparkkinesis.options.OptionKind.IntRange

/**
 * The registry's options of where credentials come from (keys, roles, profiles, a provider class)
 * and of the HTTP proxy: part of [[KinesisOptions]] (which extends this), after the options of
 * where to read; the options page lists them in the order declared here. Parsed by
 * [[ConnectionOptions]].
 */
private[options] trait CredentialAndProxySpecs extends DeclaredSpecs {
  private val shared = Usage.ReadAndWrite

  val AwsAccessKey = declare(OptionSpec("awsAccessKey", None,
      "AWS access key id; with awsSecretKey. Takes precedence over the default chain; with roleArn, the " +
        "keys the role is assumed with.", secret = true, usage = shared, emptyMeansNotGiven = true))
  val AwsSecretKey = declare(OptionSpec("awsSecretKey", None,
      "AWS secret access key matching awsAccessKey.", secret = true, usage = shared, emptyMeansNotGiven = true))
  val AwsSessionToken = declare(OptionSpec("awsSessionToken", None,
      "Session token, for temporary keys.", secret = true, usage = shared, emptyMeansNotGiven = true))
  val RoleArn = declare(OptionSpec("roleArn", None,
      "IAM role to assume through STS, with the keys above if given, else with the default chain; " +
        "renewed before it expires.", usage = shared, emptyMeansNotGiven = true))
  val RoleExternalId = declare(OptionSpec("roleExternalId", None,
      "External id for roleArn, if the role's trust policy asks for one.", usage = shared, emptyMeansNotGiven = true))
  val RoleSessionName = declare(OptionSpec("roleSessionName", Some(ConnectionOptions.DefaultRoleSessionName),
      "Session name for roleArn (shows in CloudTrail).", usage = shared, emptyMeansNotGiven = true))
  val StsEndpoint = declare(OptionSpec("stsEndpoint", None,
      "STS endpoint URL for roleArn (VPC, FIPS, local STS).", usage = shared, emptyMeansNotGiven = true,
      shownDefault = Some("the region's STS endpoint")))
  val Profile = declare(OptionSpec("profile", None,
      "A named profile of the AWS shared credentials and config files (`~/.aws/credentials`, `~/.aws/config`, " +
        "or where AWS_SHARED_CREDENTIALS_FILE and AWS_CONFIG_FILE point) of the driver and each executor; read " +
        "again when the files change, so keys rotated in place are used without a restart. Instead of the keys " +
        "options; with roleArn, the credentials the role is assumed with.", usage = shared, emptyMeansNotGiven = true))
  val AwsCredentialsProvider = declare(OptionSpec("awsCredentialsProvider", None,
      "A class implementing the AWS SDK v2's `AwsCredentialsProvider` that supplies the credentials, built in " +
        "the driver and each executor: with a public constructor taking awsCredentialsProviderSecret (a String) or " +
        "a static `create(String)` when that is given, else a public no-argument constructor or a static " +
        "`create()`. Compiled against the SDK as published or against the connector's jar, either works; the " +
        "SDK's own providers may be named too. Instead of the keys options and profile; with roleArn, the " +
        "credentials the role is assumed with. See [Authentication](authentication.md#a-credentials-provider-class).",
      usage = shared, emptyMeansNotGiven = true))
  val AwsCredentialsProviderSecret = declare(OptionSpec("awsCredentialsProviderSecret", None,
      "The String awsCredentialsProvider is built with (its constructor's or `create`'s argument), treated " +
        "as a secret: masked in logs, errors and plans (its name matches Spark's default spark.redaction.regex).",
      secret = true, usage = shared,
      emptyMeansNotGiven = true))
  val ProxyHost = declare(OptionSpec("proxyHost", None,
      "Host name or IP address of an HTTP proxy every AWS call goes through (Kinesis, enhanced fan-out, STS), " +
        "with proxyPort; https endpoints are reached through CONNECT tunnels. Without it, the JVM's and the AWS " +
        "SDK's own proxy settings apply.", usage = shared, emptyMeansNotGiven = true))
  val ProxyPort = declare(OptionSpec("proxyPort", None, "Port of proxyHost.", usage = shared, kind = IntRange(1, 65535),
      emptyMeansNotGiven = true))
  val ProxyUsername = declare(OptionSpec("proxyUsername", None,
      "User name for the proxy's Basic authentication, with proxyPassword.", usage = shared, emptyMeansNotGiven = true))
  val ProxyPassword = declare(OptionSpec("proxyPassword", None,
      "Password for the proxy's Basic authentication; kept secret.", secret = true, usage = shared,
      emptyMeansNotGiven = true))
  val NonProxyHosts = declare(OptionSpec("nonProxyHosts", None,
      "Hosts reached without the proxy, separated by commas or vertical bars (as the JVM's " +
        "http.nonProxyHosts); `*` stands for any characters (`*.internal, 10.*`).", usage = shared,
      emptyMeansNotGiven = true))
}
