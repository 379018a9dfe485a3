package io.github.sparkkinesis.client

import scala.util.Try
import scala.util.control.NonFatal

import org.apache.logging.log4j.{Level, LogManager}
import org.apache.logging.log4j.core.config.Configurator
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner

/**
 * The AWS SDK's request signers log the canonical request at DEBUG, and a canonical request
 * holds the `x-amz-security-token` header: the session token of `awsSessionToken`, or of an
 * assumed role. The SDK is shaded into this jar, so its loggers live under
 * `io.github.sparkkinesis.shaded...`, and turning the connector's logging to DEBUG would turn
 * that on too. The connector therefore pins the signers' loggers at INFO (or quieter, if they
 * already are) before it builds a client, in every JVM (ARCHITECTURE.md invariant 7). Nothing
 * else the SDK logs at DEBUG holds a credential (the leak test checks the whole DEBUG log).
 *
 * Spark logs through log4j 2; where another backend is in use this does nothing.
 */
private[sparkkinesis] object SdkLogging {
  /** The signer packages, by their names in this jar (shaded or not). */
  lazy val signerLoggers: Seq[String] = {
    val httpAuth = classOf[AwsV4HttpSigner].getPackageName // ...http.auth.aws.signer
    val auth = classOf[AwsCredentialsProvider].getPackageName // ...auth.credentials
    Seq(httpAuth, httpAuth.stripSuffix(".signer") + ".internal.signer", auth.stripSuffix(".credentials") + ".signer")
  }

  def quietSigners(): Unit =
    try {
      signerLoggers.foreach { name =>
        val current = LogManager.getLogger(name).getLevel
        val pinned = if (current.isMoreSpecificThan(Level.INFO)) current else Level.INFO
        // A level of its own, so a later change of the root level (setLogLevel) does not reach it.
        if (current != pinned || !hasOwnLevel(name)) Configurator.setLevel(name, pinned)
      }
    } catch {
      case _: LinkageError => // no log4j-core: another logging backend, configured by the user
      case NonFatal(_) =>
    }

  private def hasOwnLevel(name: String): Boolean = Try {
    val context = LogManager.getContext(false).asInstanceOf[org.apache.logging.log4j.core.LoggerContext]
    context.getConfiguration.getLoggers.containsKey(name)
  }.getOrElse(false)
}
