// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client

/**
 * How the connector reaches AWS, shared by the source, the sink and the consumer manager.
 * Sent to executors inside tasks, so every field is serializable; `toString` never shows a
 * secret (ARCHITECTURE.md invariant 7).
 */
final case class ConnectionConfig(
    region: String,
    endpoint: Option[String],
    credentials: CredentialsConfig,
    /**
     * The streams the user named by ARN (`streamARN`), by stream name. Calls about them name the
     * ARN: Kinesis resolves a bare name in the caller's account, so only the ARN reaches a stream
     * of another account (shared through a resource policy, or reached through `roleArn`).
     */
    streamArns: Map[String, String] = Map.empty,
    /**
     * Records are read by the AWS SDK's own unmarshalling, not the connector's decoders
     * (`recordDecoder` = `sdk`): the same rows and offsets, for when a decoder is suspected.
     */
    sdkDecoding: Boolean = false) {

  /** Where requests go, for error messages (never includes credentials). */
  def where: String = endpoint.map(e => s"endpoint $e, region $region").getOrElse(s"region $region")

  /** The ARN calls about `stream` name, when the user named it by ARN. */
  def streamArn(stream: String): Option[String] = streamArns.get(stream)

  /** `stream` as calls name it, for messages: its ARN, else its name. */
  def streamShown(stream: String): String = streamArns.getOrElse(stream, stream)

  override def toString: String = {
    val arns = if (streamArns.isEmpty) "" else streamArns.values.toSeq.sorted.mkString(", streamArns=[", ", ", "]")
    val decoding = if (sdkDecoding) ", recordDecoder=sdk" else ""
    s"ConnectionConfig(region=$region, endpoint=${endpoint.getOrElse("<regional>")}, credentials=$credentials$arns$decoding)"
  }
}

/**
 * Where credentials come from, in the order of precedence of the options: keys given as
 * options, else the SDK's default chain; either of them may be the base credentials for
 * assuming a role. Only [[StaticKeys]] holds secrets; the default chain and roles are
 * resolved in each JVM (driver and executors) by itself.
 */
sealed trait CredentialsConfig extends Serializable {
  /** For messages: which credentials, never a secret ("access key AKIA…WXYZ from the options"). */
  def describe: String
}

object CredentialsConfig {
  /** The AWS SDK's default chain: environment, system properties, profiles, container, instance. */
  case object DefaultChain extends CredentialsConfig {
    override def describe: String = "the AWS default credential chain"
  }

  /** `awsAccessKey` + `awsSecretKey` (+ `awsSessionToken`). */
  final case class StaticKeys(accessKeyId: String, secretKey: String, sessionToken: Option[String])
    extends CredentialsConfig {
    override def describe: String = {
      val token = if (sessionToken.isDefined) " and awsSessionToken" else ""
      s"access key ${AccessKeys.mask(accessKeyId)} from the options awsAccessKey/awsSecretKey$token"
    }

    override def toString: String =
      s"StaticKeys(accessKeyId=${AccessKeys.mask(accessKeyId)}, secretKey=<redacted>, " +
        s"sessionToken=${if (sessionToken.isDefined) "<redacted>" else "<none>"})"
  }

  /**
   * `roleArn`: temporary credentials from STS AssumeRole, made with the `base` credentials and
   * refreshed before they expire. `stsRegion` is the connection's region (STS is regional);
   * `stsEndpoint` overrides it. `sessionSeconds` is the session length asked of STS.
   */
  final case class AssumeRole(
      roleArn: String,
      externalId: Option[String],
      sessionName: String,
      stsEndpoint: Option[String],
      stsRegion: String,
      base: CredentialsConfig,
      sessionSeconds: Int = AssumeRole.DefaultSessionSeconds) extends CredentialsConfig {

    def stsWhere: String =
      stsEndpoint.map(e => s"endpoint $e, region $stsRegion").getOrElse(s"region $stsRegion")

    override def describe: String = {
      val external = externalId.map(id => s", external id '$id'").getOrElse("")
      s"role $roleArn (session '$sessionName'$external) assumed through STS ($stsWhere) with ${base.describe}"
    }

    override def toString: String =
      s"AssumeRole(roleArn=$roleArn, externalId=${externalId.getOrElse("<none>")}, " +
        s"sessionName=$sessionName, stsEndpoint=${stsEndpoint.getOrElse("<regional>")}, " +
        s"stsRegion=$stsRegion, sessionSeconds=$sessionSeconds, base=$base)"
  }

  object AssumeRole {
    /** STS's own default; every role allows at least one hour (also when chaining roles). */
    val DefaultSessionSeconds = 3600
  }
}

/** Access key ids in messages: shown as the AWS CLI's `aws configure list` shows them. */
object AccessKeys {
  /**
   * The 4-character type prefix (AKIA long-term, ASIA temporary) and the last 4 characters,
   * enough to tell keys apart in the IAM console, never the whole id.
   */
  def mask(accessKeyId: String): String = {
    val id = accessKeyId.trim
    if (id.length >= 16) s"${id.take(4)}…${id.takeRight(4)}"
    else if (id.length >= 8) s"…${id.takeRight(2)}"
    else "…"
  }
}
