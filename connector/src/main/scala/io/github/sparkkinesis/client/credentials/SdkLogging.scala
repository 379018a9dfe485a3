// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.credentials

import scala.util.Try
import scala.util.control.NonFatal

import org.apache.logging.log4j.{Level, LogManager}
import org.apache.logging.log4j.core.config.Configurator
import io.netty.handler.codec.http2.Http2FrameLogger
import io.netty.handler.logging.LoggingHandler
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner

/**
 * The AWS SDK's request signers log the canonical request at DEBUG, and a canonical request
 * holds the `x-amz-security-token` header: the session token of `awsSessionToken`, or of an
 * assumed role. The SDK's HTTP/2 client (SubscribeToShard) installs Netty's frame logger and
 * logging handler at DEBUG, which print every header (the signature, the access key id, the
 * session token) and every byte sent. The SDK and Netty are shaded into this jar, so their
 * loggers live under `io.github.sparkkinesis.shaded...`, and turning the connector's logging
 * to DEBUG would turn those on too. The connector therefore pins these loggers at INFO (or
 * quieter, if they already are) before it builds any client, in every JVM (ARCHITECTURE.md
 * invariant 7). Nothing else the SDK logs at DEBUG holds a credential (the leak tests check
 * the whole DEBUG logs of the driver and of executors).
 *
 * Spark logs through log4j 2; where another backend is in use this does nothing.
 */
private[sparkkinesis] object SdkLogging {
  /** The signer packages and Netty's wire loggers, by their names in this jar (shaded or not). */
  lazy val secretLoggers: Seq[String] = {
    val httpAuth = classOf[AwsV4HttpSigner].getPackageName // ...http.auth.aws.signer
    val auth = classOf[AwsCredentialsProvider].getPackageName // ...auth.credentials
    Seq(httpAuth, httpAuth.stripSuffix(".signer") + ".internal.signer", auth.stripSuffix(".credentials") + ".signer",
      classOf[Http2FrameLogger].getName, classOf[LoggingHandler].getName)
  }

  def quietSecretLoggers(): Unit =
    try {
      secretLoggers.foreach { name =>
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
