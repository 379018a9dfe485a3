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
    sdkDecoding: Boolean = false,
    /** The HTTP proxy of every client (`proxyHost`...); None: the JVM's and the SDK's own settings. */
    proxy: Option[ProxyConfig] = None) {

  /** Where requests go, for error messages (never includes credentials). */
  def where: String = endpoint.map(e => s"endpoint $e, region $region").getOrElse(s"region $region")

  /** The ARN calls about `stream` name, when the user named it by ARN. */
  def streamArn(stream: String): Option[String] = streamArns.get(stream)

  /** `stream` as calls name it, for messages: its ARN, else its name. */
  def streamShown(stream: String): String = streamArns.getOrElse(stream, stream)

  override def toString: String = {
    val arns = if (streamArns.isEmpty) "" else streamArns.values.toSeq.sorted.mkString(", streamArns=[", ", ", "]")
    val decoding = if (sdkDecoding) ", recordDecoder=sdk" else ""
    val proxied = proxy.fold("")(p => s", proxy=$p")
    s"ConnectionConfig(region=$region, endpoint=${endpoint.getOrElse("<regional>")}, credentials=$credentials" +
      s"$arns$decoding$proxied)"
  }
}

/**
 * Where credentials come from: keys given as options, a profile of the AWS shared files, a
 * credentials provider class, else the SDK's default chain; any of them may be the base
 * credentials for assuming a role. Only [[StaticKeys]] and a [[ProviderClass]]'s parameter
 * hold secrets; everything else is resolved in each JVM (driver and executors) by itself.
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
   * `profile`: the named profile of the AWS shared files (`~/.aws/credentials`, `~/.aws/config`,
   * or where AWS_SHARED_CREDENTIALS_FILE / AWS_CONFIG_FILE point) of each JVM, read again when
   * the files change, so rotated keys are used without a restart.
   */
  final case class Profile(name: String) extends CredentialsConfig {
    override def describe: String = s"profile '$name' of the AWS shared credentials and config files"
  }

  /**
   * `awsCredentialsProvider` (+ `awsCredentialsProviderSecret`): a class of the user's that
   * supplies credentials, built in each JVM by [[CustomCredentials]]. The parameter may be a
   * secret: it is never shown.
   */
  final case class ProviderClass(className: String, parameter: Option[String]) extends CredentialsConfig {
    override def describe: String = {
      val param = if (parameter.isDefined) " and its awsCredentialsProviderSecret" else ""
      s"the credentials provider $className (option awsCredentialsProvider$param)"
    }

    override def toString: String =
      s"ProviderClass($className, parameter=${if (parameter.isDefined) "<redacted>" else "<none>"})"
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
      sessionSeconds: Int = AssumeRole.DefaultSessionSeconds,
      /** The connection's proxy, which STS is reached through as well. */
      proxy: Option[ProxyConfig] = None) extends CredentialsConfig {

    def stsWhere: String =
      stsEndpoint.map(e => s"endpoint $e, region $stsRegion").getOrElse(s"region $stsRegion")

    override def describe: String = {
      val external = externalId.map(id => s", external id '$id'").getOrElse("")
      s"role $roleArn (session '$sessionName'$external) assumed through STS ($stsWhere) with ${base.describe}"
    }

    override def toString: String =
      s"AssumeRole(roleArn=$roleArn, externalId=${externalId.getOrElse("<none>")}, " +
        s"sessionName=$sessionName, stsEndpoint=${stsEndpoint.getOrElse("<regional>")}, " +
        s"stsRegion=$stsRegion, sessionSeconds=$sessionSeconds, base=$base${proxy.fold("")(p => s", proxy=$p")})"
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
