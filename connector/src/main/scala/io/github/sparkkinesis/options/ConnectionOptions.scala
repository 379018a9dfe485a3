// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.options

import java.net.URI
import java.util.Locale

import scala.util.Try

import io.github.sparkkinesis.client.{ConnectionConfig, CredentialsConfig, ProxyConfig}
import io.github.sparkkinesis.client.sdk.AwsRegions
import io.github.sparkkinesis.errors.KinesisErrors

/**
 * The options that say how to reach AWS (region, endpoint, credentials), shared by the
 * source, the sink and the consumer manager so all three connect the same way.
 *
 * Credentials: one of `awsAccessKey` + `awsSecretKey` (+ `awsSessionToken`), `profile` or
 * `awsCredentialsProvider` ([[CredentialSources]]), else the AWS SDK's default chain; with
 * `roleArn`, the role is assumed through STS with those. The proxy: [[ProxyOptions]].
 */
private[sparkkinesis] object ConnectionOptions {
  import KinesisOptions._

  /** Session name of assumed roles when `roleSessionName` is not given; shows in CloudTrail. */
  val DefaultRoleSessionName = "spark-kinesis"

  /**
   * Test-only: a JVM system property, read on the driver when the options are parsed, that
   * shortens assumed-role sessions (seconds) so tests see credentials renewed within seconds.
   * Real STS refuses less than 900 s; users leave it unset (one hour).
   */
  val TestSessionSecondsProperty = "sparkkinesis.test.assumeRoleSessionSeconds"

  // IAM role ARNs in any partition, with an optional path: arn:aws:iam::123456789012:role/a/b.
  private val RoleArnPattern = "arn:aws(?:-[a-z]+)*:iam::[0-9]{12}:role/[A-Za-z0-9+=,.@_/-]{1,512}".r
  // STS's own limits for RoleSessionName and ExternalId.
  private val SessionNamePattern = "[A-Za-z0-9+=,.@_-]{2,64}".r
  private val ExternalIdPattern = "[A-Za-z0-9+=,.@:/_-]{2,1224}".r

  // An AWS Kinesis endpoint names its region (kinesis.us-east-1.amazonaws.com, the FIPS and
  // China ones too): the region of a query that gives the endpoint but no region.
  private val RegionalEndpoint = """(?i)https?://kinesis(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?/?""".r

  private[options] def regionOfEndpoint(endpoint: String): Option[String] = endpoint.trim match {
    case RegionalEndpoint(region) => Some(region.toLowerCase(Locale.ROOT))
    case _ => None
  }

  /** `regionOfStreams`: the region the streamARN option names, which region may not contradict. */
  def parse(values: OptionValues, regionOfStreams: Option[String] = None): ConnectionConfig = {
    val endpoint = url(values, Endpoint, "https://kinesis.us-east-1.amazonaws.com")
    val named = values.get(Region).map(_.trim).filter(_.nonEmpty).orElse(regionOfStreams)
    val region = named.orElse(endpoint.flatMap(ConnectionOptions.regionOfEndpoint)) match {
      case Some(r) => checkRegion(values, r, "")
      case None =>
        checkRegion(values, AwsRegions.fromEnvironment(),
          "; it was not given as an option but resolved from the " +
            "environment (AWS_REGION, the AWS profile, the instance), so set 'region' to override it")
    }
    val proxy = ProxyOptions.parse(values)
    ConnectionConfig(region, endpoint, credentials(values, region, proxy), proxy = proxy)
  }

  private def credentials(values: OptionValues, region: String, proxy: Option[ProxyConfig]): CredentialsConfig = {
    val keys = CredentialSources.base(values)
    val roleArn = nonEmpty(values, RoleArn)
    val externalId = nonEmpty(values, RoleExternalId)
    val sessionName = nonEmpty(values, RoleSessionName)
    val stsEndpoint = url(values, StsEndpoint, "https://sts.us-east-1.amazonaws.com")
    roleArn match {
      case None =>
        Seq(RoleExternalId, RoleSessionName, StsEndpoint)
          .find(spec => values.isSet(spec) && nonEmpty(values, spec).isDefined)
          .foreach { spec =>
            val named = values.name(spec)
            throw KinesisErrors.conflictingOptions(Seq(named, RoleArn.name),
              s"$named applies only when a role is assumed; add roleArn or remove $named")
          }
        keys
      case Some(arn) =>
        if (!RoleArnPattern.pattern.matcher(arn).matches()) {
          throw values.invalid(RoleArn, arn, "an IAM role ARN such as arn:aws:iam::123456789012:role/kinesis-reader")
        }
        externalId.filterNot(s => ExternalIdPattern.pattern.matcher(s).matches()).foreach { id =>
          throw values.invalid(RoleExternalId, id,
            "2 to 1224 characters of letters, digits and + = , . @ : / _ -, as STS requires")
        }
        sessionName.filterNot(s => SessionNamePattern.pattern.matcher(s).matches()).foreach { name =>
          throw values.invalid(RoleSessionName, name,
            "2 to 64 characters of letters, digits and + = , . @ _ -, as STS requires")
        }
        CredentialsConfig.AssumeRole(
          roleArn = arn,
          externalId = externalId,
          sessionName = sessionName.getOrElse(DefaultRoleSessionName), // also when given empty
          stsEndpoint = stsEndpoint,
          stsRegion = region,
          base = keys,
          sessionSeconds =
            sys.props.get(TestSessionSecondsProperty).flatMap(s => scala.util.Try(s.toInt).toOption).filter(_ > 0)
              .getOrElse(CredentialsConfig.AssumeRole.DefaultSessionSeconds),
          proxy = proxy)
    }
  }

  private[options] def nonEmpty(values: OptionValues, spec: OptionSpec): Option[String] =
    values.get(spec).map(_.trim).filter(_.nonEmpty)

  /** An http(s) URL with a host, as the SDK's endpoint override needs it. */
  private def url(values: OptionValues, spec: OptionSpec, example: String): Option[String] =
    nonEmpty(values, spec).map { text =>
      val uri = Try(new URI(text)).toOption
      val ok = uri.exists(u =>
        Option(u.getScheme).exists(s => s == "http" || s == "https") &&
          Option(u.getHost).nonEmpty)
      if (!ok) throw values.invalid(spec, text, s"a URL such as $example")
      text
    }

  private def checkRegion(values: OptionValues, region: String, origin: String): String = {
    if (!AwsRegions.exists(region)) {
      val suggestion = closestRegion(region).map(s => s" (did you mean $s?)").getOrElse("")
      throw values.invalid(Region, region,
        s"an AWS region such as us-east-1, eu-west-1 or ap-southeast-2$suggestion; " +
          s"the ${AwsRegions.known.size} regions this connector knows are accepted, and newer ones " +
          s"when they are named like the regions of their partition$origin")
    }
    region
  }

  /** The known region closest to a misspelt one, if it is a likely typo. */
  private def closestRegion(region: String): Option[String] = {
    val r = region.trim.toLowerCase(Locale.ROOT)
    if (AwsRegions.known.isEmpty) None
    else {
      val (best, distance) = AwsRegions.known.map(k => k -> KinesisOptions.editDistance(r, k)).minBy(_._2)
      if (distance <= 3) Some(best) else None
    }
  }
}
