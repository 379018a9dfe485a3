// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.credentials

import java.time.Duration

import scala.jdk.OptionConverters._
import scala.util.Try

import software.amazon.awssdk.auth.credentials.{AwsCredentials => SdkCredentials, _}
import software.amazon.awssdk.core.useragent.BusinessMetricFeatureId
import software.amazon.awssdk.profiles.ProfileFileSupplier
import software.amazon.awssdk.services.sts.auth.StsAssumeRoleCredentialsProvider
import software.amazon.awssdk.services.sts.model.AssumeRoleRequest

import io.github.sparkkinesis.client.CredentialsConfig._
import io.github.sparkkinesis.client.CredentialsConfig
import io.github.sparkkinesis.client.AccessKeys

/**
 * The one place credentials are turned into SDK credential providers, for every client the
 * connector builds (Kinesis for the source and the sink, the consumer manager, STS).
 *
 * One provider per [[CredentialsConfig]] per JVM: every client with the same credentials
 * shares it, so a role is assumed once per JVM (not once per client or task) and refreshed
 * in the background before its credentials expire.
 *
 * Ownership: a provider is held by its users, counted: each SDK client built with it
 * ([[acquire]] when built, [[release]] when closed), and a role's provider for its base
 * credentials. The last release closes it: its refresh thread stops, and a role's STS client
 * closes. So providers live exactly as long as the clients that sign with them.
 */
object AwsCredentials {
  /** A provider, what closes with it, and how many users hold it. */
  private final class Held(val provider: AwsCredentialsProvider, val close: () => Unit) {
    var users = 0
  }

  private val providers = scala.collection.mutable.Map.empty[CredentialsConfig, Held]

  /** The provider for `credentials`, built now if none is held; held by the caller until it calls [[release]]. */
  def acquire(credentials: CredentialsConfig): AwsCredentialsProvider = synchronized {
    // Not computeIfAbsent: building a role's provider acquires its base provider first.
    val held = providers.getOrElseUpdate(credentials, build(credentials))
    held.users += 1
    held.provider
  }

  /** A user of `credentials`' provider let go of it; the last one closes it. */
  def release(credentials: CredentialsConfig): Unit = {
    val last = synchronized {
      providers.get(credentials).flatMap { held =>
        held.users -= 1
        if (held.users > 0) None else providers.remove(credentials)
      }
    }
    last.foreach(_.close()) // Outside the lock: closing may wait for a refresh.
  }

  /** Runs `body` with the provider of `credentials`: the one held, else one built for this call and closed after. */
  def borrow[T](credentials: CredentialsConfig)(body: AwsCredentialsProvider => T): T = {
    val provider = acquire(credentials)
    try body(provider)
    finally release(credentials)
  }

  /** How many providers this JVM holds (with a role, its base provider counts too). */
  def live: Int = synchronized(providers.size)

  private def build(credentials: CredentialsConfig): Held = credentials match {
    case role: AssumeRole => assumeRole(role)
    case other =>
      val provider = plain(other)
      new Held(provider, () => closeQuietly(provider))
  }

  private def plain(credentials: CredentialsConfig): AwsCredentialsProvider = credentials match {
    case DefaultChain =>
      // Resolved here, in this JVM; container and instance-profile credentials are renewed
      // in the background before they expire.
      DefaultCredentialsProvider.builder().asyncCredentialUpdateEnabled(true).build()
    case StaticKeys(id, secret, None) =>
      StaticCredentialsProvider.create(AwsBasicCredentials.create(id, secret))
    case StaticKeys(id, secret, Some(token)) =>
      StaticCredentialsProvider.create(AwsSessionCredentials.create(id, secret, token))
    case Profile(name) =>
      // The default supplier reads the files again when they change (keys rotated in place).
      ProfileCredentialsProvider.builder().profileFile(ProfileFileSupplier.defaultSupplier()).profileName(name).build()
    case custom: ProviderClass => CustomCredentials.provider(custom)
    case role: AssumeRole => throw new IllegalArgumentException(s"$role is built with its STS client")
  }

  private def closeQuietly(resource: AnyRef): Unit = resource match {
    case c: AutoCloseable => Try(c.close())
    case _ =>
  }

  /**
   * When, before they expire, assumed-role credentials are renewed: in the background from
   * `prefetch` on, and by the calling thread (blocking) from `stale` on. For the default
   * one-hour session these are the SDK's defaults (5 and 1 minutes); shorter sessions (tests)
   * scale them down so they still renew well before expiry.
   */
  private[sparkkinesis] def refreshTimes(sessionSeconds: Int): (Duration, Duration) = {
    val session = Duration.ofSeconds(sessionSeconds.toLong)
    val prefetch = Seq(Duration.ofMinutes(5), session.dividedBy(2)).min
    val stale = Seq(Duration.ofMinutes(1), session.dividedBy(4)).min
    (prefetch, stale)
  }

  private def assumeRole(role: AssumeRole): Held = {
    val base = acquire(role.base)
    val sts = StsClients.assumingWith(role, base)
    val request = AssumeRoleRequest.builder()
      .roleArn(role.roleArn)
      .roleSessionName(role.sessionName)
      .durationSeconds(role.sessionSeconds)
    role.externalId.foreach(request.externalId)
    val (prefetch, stale) = refreshTimes(role.sessionSeconds)
    val provider = StsAssumeRoleCredentialsProvider.builder()
      .stsClient(sts)
      .refreshRequest(request.build())
      .asyncCredentialUpdateEnabled(true)
      .prefetchTime(prefetch)
      .staleTime(stale)
      .build()
    // The provider stops its refresh thread but leaves the STS client it was given open.
    new Held(provider,
      () => {
        closeQuietly(provider)
        closeQuietly(sts)
        release(role.base)
      })
  }

  /**
   * Which credentials a failed call used, for its error message: where they came from and the
   * masked access key id, resolved now (default chain, role) where possible. Never a secret.
   */
  def describeInUse(credentials: CredentialsConfig): String = credentials match {
    case static: StaticKeys => static.describe
    case other @ (_: Profile | _: ProviderClass) =>
      resolved(other) match {
        case Some((id, _)) => s"access key ${AccessKeys.mask(id)} from ${other.describe}"
        case None => s"${other.describe}, which supplied no credentials"
      }
    case DefaultChain =>
      resolved(credentials) match {
        case Some((id, source)) => s"access key ${AccessKeys.mask(id)} from the AWS default credential chain ($source)"
        case None => "the AWS default credential chain, which found no credentials"
      }
    case role: AssumeRole =>
      val temporary = resolved(role).map { case (id, _) => s"; temporary access key ${AccessKeys.mask(id)}" }
      val base = role.base match {
        case static: StaticKeys => static.describe
        case other => describeInUse(other)
      }
      val external = role.externalId.map(id => s", external id '$id'").getOrElse("")
      s"role ${role.roleArn} (session '${role.sessionName}'$external) assumed through STS " +
        s"(${role.stsWhere}) with $base${temporary.getOrElse("")}"
  }

  /** The access key id in use and where it came from, if credentials resolve now. */
  private def resolved(credentials: CredentialsConfig): Option[(String, String)] =
    Try(borrow(credentials)(_.resolveCredentials())).toOption.map { c =>
      (c.accessKeyId(), c.providerName().toScala.map(sourceOf).getOrElse(credentials.describe))
    }

  /**
   * The credentials this JVM's provider for `credentials` holds, without building one or
   * calling anything new (for scrubbing them out of messages).
   */
  private[client] def held(credentials: CredentialsConfig): Option[SdkCredentials] =
    synchronized(providers.get(credentials)).flatMap(h => Try(h.provider.resolveCredentials()).toOption)

  // The SDK names a provider by a short feature code ("g" for environment variables, ...).
  private lazy val featureNames: Map[String, String] =
    BusinessMetricFeatureId.values().map(f => f.value() -> f.name()).toMap

  /** Where the default chain found credentials, in words a user recognises. */
  private[client] def sourceOf(providerName: String): String =
    providerName.split(",").map(_.trim).filter(_.nonEmpty).map { code =>
      featureNames.getOrElse(code, code) match {
        case "CREDENTIALS_JVM_SYSTEM_PROPERTIES" => "JVM system properties aws.accessKeyId/aws.secretAccessKey"
        case "CREDENTIALS_ENV_VARS" => "environment variables AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY"
        case n if n.contains("WEB_ID") => "a web identity token (AWS_WEB_IDENTITY_TOKEN_FILE)"
        case n if n.contains("SSO") => "IAM Identity Center (SSO)"
        case n if n.contains("PROCESS") => "a credential_process"
        case n if n.startsWith("CREDENTIALS_PROFILE") => "a profile (AWS_PROFILE, ~/.aws/credentials, ~/.aws/config)"
        case "CREDENTIALS_HTTP" => "container credentials"
        case "CREDENTIALS_IMDS" => "the EC2 instance profile"
        case n if n.startsWith("CREDENTIALS_STS") => "STS"
        case other => other
      }
    }.distinct.mkString(", ")
}
