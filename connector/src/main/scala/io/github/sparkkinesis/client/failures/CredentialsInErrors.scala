// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.failures

import io.github.sparkkinesis.errors.CauseChain
import io.github.sparkkinesis.client.{AccessKeys, CredentialsConfig}
import io.github.sparkkinesis.client.credentials.AwsCredentials

/**
 * Credentials never reach an error message or a log: what the SDK, STS or a proxy says is
 * scrubbed of the keys and tokens in use before the connector shows it.
 */
private[client] object CredentialsInErrors {
  /**
   * What must not be shown of the credentials in use, and what to show instead: the secret
   * key and session token redacted, the access key id masked. For the default chain and roles
   * these are the credentials the JVM's provider holds now, if it was built already.
   */
  private def replacements(credentials: CredentialsConfig): Seq[(String, String)] = {
    def of(id: String, secret: String, token: Option[String]) =
      (Seq(secret) ++ token).filter(_.length >= 4).map(_ -> "<redacted>") ++
        Seq(id).filter(_.length >= 4).map(i => i -> AccessKeys.mask(i))
    val held = AwsCredentials.held(credentials).toSeq.flatMap { c =>
      val token = c match {
        case session: software.amazon.awssdk.auth.credentials.AwsSessionCredentials => Some(session.sessionToken())
        case _ => None
      }
      of(c.accessKeyId(), c.secretAccessKey(), token)
    }
    val static = credentials match {
      case CredentialsConfig.StaticKeys(id, secret, token) => of(id, secret, token)
      case r: CredentialsConfig.AssumeRole => replacements(r.base)
      // A provider's own errors may quote the string it was built with.
      case CredentialsConfig.ProviderClass(_, parameter) => parameter.toSeq.filter(_.length >= 4).map(_ -> "<redacted>")
      case CredentialsConfig.DefaultChain | _: CredentialsConfig.Profile => Nil
    }
    // Longest first, so a token that contains a key id is redacted whole.
    (static ++ held).distinct.sortBy(-_._1.length)
  }

  /** `text` with every credential of `credentials` masked or redacted. */
  def scrub(text: String, credentials: CredentialsConfig): String =
    replacements(credentials).foldLeft(text) { case (t, (secret, shown)) => t.replace(secret, shown) }

  /**
   * `e` itself when no message in its chain repeats a credential (AWS's messages do not; but an
   * InvalidSignatureException may quote the canonical request, session token included, and a
   * proxy's page may quote anything); else a copy of the chain with those messages scrubbed
   * and the original classes named, so stack traces in logs stay useful and clean.
   */
  def sanitize(e: Throwable, credentials: CredentialsConfig): Throwable = {
    val secrets = replacements(credentials).map(_._1)
    def leaks(t: Throwable): Boolean =
      AwsFailures.causes(t).exists { c =>
        (Option(c.getMessage).toSeq ++ c.getSuppressed.flatMap(s => Option(s.getMessage)))
          .exists(m => secrets.exists(m.contains))
      }
    // Copied innermost first, along the bounded chain: a chain whose causes name each other ends.
    def copy(t: Throwable): Throwable =
      CauseChain.of(t).foldRight(null: Throwable) { (c, cause) =>
        val clean =
          new RedactedAwsException(c.getClass.getName, scrub(String.valueOf(c.getMessage), credentials), cause)
        clean.setStackTrace(c.getStackTrace)
        c.getSuppressed.foreach(s => clean.addSuppressed(copy(s)))
        clean
      }
    if (secrets.nonEmpty && leaks(e)) copy(e) else e
  }
}

/** An SDK exception whose message repeated a credential, copied with the credential masked. */
final class RedactedAwsException(originalClass: String, message: String, cause: Throwable)
  extends RuntimeException(s"$originalClass: $message", cause)
