// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.failures

import java.io.InterruptedIOException
import java.net.SocketTimeoutException
import java.security.cert.CertificateException
import javax.net.ssl.{SSLHandshakeException, SSLPeerUnverifiedException}

import software.amazon.awssdk.awscore.exception.AwsServiceException
import software.amazon.awssdk.core.exception.{AbortedException, SdkClientException}
import software.amazon.awssdk.services.kinesis.model.KinesisException
import software.amazon.awssdk.services.sts.model.StsException

import io.github.sparkkinesis.errors.{CauseChain, KinesisConnectorException, KinesisErrors}
import io.github.sparkkinesis.client.{ConnectionConfig, CredentialsConfig}
import io.github.sparkkinesis.client.credentials.AwsCredentials

/**
 * Turns failed AWS calls into errors a user can act on, the same way for every caller (the
 * source, the sink, the consumer manager):
 *  - an access denial names the API call and the IAM permission it needs;
 *  - rejected or missing credentials say which credentials were used (masked key id, where
 *    they came from), never a secret;
 *  - a role that cannot be assumed is reported as the STS AssumeRole call that failed;
 *  - an untrusted TLS certificate says how to trust it.
 *  - an endpoint where nothing answers, or something that is not Kinesis, is named as such.
 * Anything else is left to the caller (None).
 */
object AwsFailures {

  /** Error codes AWS uses for "these credentials may not do that". */
  private val AccessDeniedCodes = Set("AccessDeniedException", "AccessDenied", "UnauthorizedOperation",
    "KMSAccessDeniedException", "AuthorizationError")

  /** Error codes AWS uses for "these credentials expired" (see [[Retryable.expiredCredentials]]). */
  val ExpiredTokenCodes: Set[String] = Set("ExpiredToken", "ExpiredTokenException")

  /** Error codes AWS uses for "these credentials are not valid" (unknown, wrong, expired). */
  private val AuthenticationCodes = Set("UnrecognizedClientException", "InvalidSignatureException",
    "IncompleteSignatureException", "IncompleteSignature", "MissingAuthenticationTokenException",
    "MissingAuthenticationToken", "InvalidClientTokenId", "SignatureDoesNotMatch", "InvalidToken", "AuthFailure",
    "InvalidAccessKeyId") ++ ExpiredTokenCodes

  /** The IAM permissions a Kinesis API call needs besides `kinesis:<call>`. */
  private val AlsoNeeded = Map(
    "GetRecords" -> " (and kms:Decrypt on the stream's KMS key, if it is encrypted with a customer managed key)",
    "SubscribeToShard" -> " (and kms:Decrypt on the stream's KMS key, if it is encrypted with a customer managed key)",
    "PutRecords" -> " (and kms:GenerateDataKey on the stream's KMS key, if it is encrypted with a customer managed key)",
    "PutRecord" -> " (and kms:GenerateDataKey on the stream's KMS key, if it is encrypted with a customer managed key)")

  /** The IAM action of a Kinesis API call: the call's own name, as Kinesis defines its actions. */
  def kinesisAction(operation: String): String = s"kinesis:$operation"

  /**
   * `failure` as it may be shown in an error or a log, with every credential of `credentials`
   * it repeats masked ([[CredentialsInErrors.sanitize]]): for failures shown without [[translate]].
   */
  def shown(failure: Throwable, credentials: CredentialsConfig): Throwable =
    CredentialsInErrors.sanitize(failure, credentials)

  /** Whether a failed call failed only because its thread was interrupted (a query stopping, a task killed). */
  def interrupted(e: Throwable): Boolean = causes(e).exists {
    case _: SocketTimeoutException => false // an InterruptedIOException, but a silent endpoint
    case _: AbortedException | _: InterruptedException | _: InterruptedIOException => true
    case _ => false
  }

  /**
   * The most telling exception of a failed asynchronous call: Kinesis' own, else the innermost
   * one that is not just a future's wrapper.
   */
  def mostTelling(error: Throwable): Throwable = {
    val chain = causes(error)
    chain.collectFirst { case k: KinesisException => k }.getOrElse(
      chain.filterNot(c =>
        c.isInstanceOf[java.util.concurrent.CompletionException] ||
          c.isInstanceOf[java.util.concurrent.ExecutionException]).headOption.getOrElse(error))
  }

  /**
   * The connector error for any failed Kinesis call: [[translate]]'s, else KINESIS_API_FAILED.
   * The sink and the consumer manager call this for every SDK failure they do not handle.
   */
  def toConnectorError(operation: String, target: String, connection: ConnectionConfig,
      e: Throwable): KinesisConnectorException =
    translate(operation, target, connection, e).getOrElse {
      val clean = CredentialsInErrors.sanitize(e, connection.credentials)
      KinesisErrors.apiFailed(operation, target, connection.where, clean)
    }

  /**
   * The connector error for a failed Kinesis call (`operation` as the API names it, e.g.
   * ListShards; `target` what it was called on, e.g. "stream 'orders'"), if the failure is
   * about credentials, permissions or TLS. The error's cause is the SDK's exception, with any
   * credential it happens to repeat masked (see [[CredentialsInErrors.sanitize]]).
   */
  def translate(operation: String, target: String, connection: ConnectionConfig,
      failure: Throwable): Option[KinesisConnectorException] = {
    // Classified by the SDK's own exception types; reported with the scrubbed copy as cause.
    val chain = causes(failure)
    lazy val clean = CredentialsInErrors.sanitize(failure, connection.credentials)
    chain.collectFirst { case sts: StsException => sts } match {
      case Some(sts) => Some(assumeRoleFailed(operation, connection, sts, clean))
      case None if roleOf(connection.credentials).isDefined && chain.exists(thrownBySts) =>
        // STS could not be reached (refused, unknown host, TLS): about STS, not about Kinesis.
        val role = roleOf(connection.credentials).get
        tlsFailure(chain, "AssumeRole", role.stsEndpoint.getOrElse(s"the STS endpoint of ${role.stsRegion}"), clean)
          .orElse(Some(KinesisErrors.assumeRoleFailed(role.roleArn, operation, role.stsWhere, clean)))
      case None =>
        val endpoint = connection.endpoint.getOrElse(s"the Kinesis endpoint of ${connection.region}") +
          connection.proxy.fold("")(p => s" through the proxy ${p.host}:${p.port}")
        val service = chain.collectFirst { case s: AwsServiceException => s }
        service.flatMap(kinesisRefused(operation, target, connection, _, clean))
          .orElse(service.flatMap(proxyRefused(operation, target, connection, _, clean)))
          .orElse(service.flatMap(notKinesis(operation, target, endpoint, connection, _, clean)))
          .orElse(tlsFailure(chain, operation, endpoint, clean))
          .orElse(credentialsMissing(chain, operation, connection, clean))
          .orElse(unreachable(chain, operation, target, endpoint, clean))
    }
  }

  /** The proxy of the options answered 407: it wants other credentials than proxyUsername/proxyPassword. */
  private def proxyRefused(operation: String, target: String, connection: ConnectionConfig, e: AwsServiceException,
      clean: Throwable): Option[KinesisConnectorException] =
    connection.proxy.filter(_ => e.statusCode() == 407 && errorCode(e).isEmpty).map { p =>
      KinesisErrors.proxyRefused(s"${p.host}:${p.port}", operation, target,
        if (p.username.isDefined) s"user '${p.username.get}' with proxyPassword" else "no proxyUsername", clean)
    }

  /**
   * An HTTP answer without any AWS error code, and not a server fault (a gateway's 502 passes):
   * a web server or another service is listening at the endpoint, not Kinesis.
   */
  private def notKinesis(operation: String, target: String, endpoint: String, connection: ConnectionConfig,
      e: AwsServiceException, clean: Throwable): Option[KinesisConnectorException] =
    if (errorCode(e).isDefined || e.statusCode() >= 500 || e.statusCode() < 300) None
    else {
      val body = Option(e.awsErrorDetails()).flatMap(d => Option(d.rawResponse())).map(_.asUtf8String())
        .map(_.replaceAll("\\s+", " ").trim).filter(_.nonEmpty)
        .map(b => CredentialsInErrors.scrub(if (b.length > 200) b.take(200) + "..." else b, connection.credentials))
        .getOrElse("an empty body")
      Some(KinesisErrors.endpointNotKinesis(endpoint, operation, target, e.statusCode(), body, clean))
    }

  /**
   * Nothing answered at the endpoint: connection refused or timed out, no such host, or a
   * connection that never answered (read time-out, after the SDK's retries).
   */
  private def unreachable(chain: Seq[Throwable], operation: String, target: String, endpoint: String,
      clean: Throwable): Option[KinesisConnectorException] =
    chain.find {
      case _: java.net.ConnectException | _: java.net.UnknownHostException |
          _: java.net.NoRouteToHostException | _: java.net.SocketTimeoutException => true
      // Netty's, shaded: matched by name.
      case c => c.getClass.getSimpleName == "ConnectTimeoutException"
    }.map { c =>
      val reason = Option(c.getMessage).filter(_.nonEmpty).map(m => s"${c.getClass.getSimpleName}: $m")
        .getOrElse(c.getClass.getSimpleName)
      KinesisErrors.endpointUnreachable(endpoint, operation, target, reason, clean)
    }

  private def kinesisRefused(operation: String, target: String, connection: ConnectionConfig,
      e: AwsServiceException, clean: Throwable): Option[KinesisConnectorException] = {
    val code = errorCode(e)
    def used = CredentialsInErrors.scrub(AwsCredentials.describeInUse(connection.credentials), connection.credentials)
    val reason = CredentialsInErrors.scrub(awsMessage(e, code), connection.credentials)
    if (code.exists(AccessDeniedCodes)) {
      Some(KinesisErrors.accessDenied("Kinesis", operation, target, connection.where,
          kinesisAction(operation) + AlsoNeeded.getOrElse(operation, ""), used, reason, clean))
    } else if (code.exists(AuthenticationCodes) || (code.isEmpty && Set(401, 403)(e.statusCode()))) {
      Some(KinesisErrors.authenticationFailed("Kinesis", operation, connection.where, used, reason, clean))
    } else None
  }

  /** The role could not be assumed: STS refused the base credentials or the role's trust policy. */
  private def assumeRoleFailed(operation: String, connection: ConnectionConfig, e: StsException,
      clean: Throwable): KinesisConnectorException = {
    val code = errorCode(e)
    val reason = CredentialsInErrors.scrub(awsMessage(e, code), connection.credentials)
    roleOf(connection.credentials) match {
      case Some(r) =>
        val base = CredentialsInErrors.scrub(AwsCredentials.describeInUse(r.base), r.base)
        val target = s"role ${r.roleArn}" + r.externalId.map(id => s" with external id '$id'").getOrElse("")
        if (code.exists(AuthenticationCodes)) {
          KinesisErrors.authenticationFailed("STS", "AssumeRole", r.stsWhere, base, reason, clean)
        } else if (code.exists(AccessDeniedCodes) || e.statusCode() == 403) {
          KinesisErrors.accessDenied("STS", "AssumeRole", target, r.stsWhere,
            "sts:AssumeRole (and the role's trust policy must allow this identity" +
              r.externalId.map(_ => ", with this external id").getOrElse("") + ")", base, reason, clean)
        } else {
          KinesisErrors.assumeRoleFailed(r.roleArn, operation, r.stsWhere, clean)
        }
      case None => KinesisErrors.apiFailed(operation, "STS credentials", connection.where, clean)
    }
  }

  private def tlsFailure(chain: Seq[Throwable], operation: String, endpoint: String,
      clean: Throwable): Option[KinesisConnectorException] =
    chain.find {
      case _: SSLHandshakeException | _: SSLPeerUnverifiedException | _: CertificateException => true
      case _ => false
    }.map { tls =>
      // The innermost message is the precise one ("PKIX path building failed", "No subject
      // alternative names matching IP address ... found").
      val reason = chain.dropWhile(_ ne tls).reverse.map(_.getMessage).find(m => m != null && m.nonEmpty)
      KinesisErrors.tlsUntrusted(endpoint, operation, reason.getOrElse(tls.toString), clean)
    }

  private def credentialsMissing(chain: Seq[Throwable], operation: String,
      connection: ConnectionConfig, clean: Throwable): Option[KinesisConnectorException] =
    chain.collectFirst {
      case c: SdkClientException if Option(c.getMessage).exists(_.contains("Unable to load credentials")) => c
    }.map(c => KinesisErrors.credentialsUnavailable(operation, connection.where, c.getMessage, clean))

  private val StsPackage = classOf[StsException].getPackageName.stripSuffix(".model")

  /** Whether `e` was raised inside the STS client (its stack names STS classes). */
  private def thrownBySts(e: Throwable): Boolean = e.getStackTrace.exists(_.getClassName.startsWith(StsPackage + "."))

  private def roleOf(credentials: CredentialsConfig): Option[CredentialsConfig.AssumeRole] = credentials match {
    case r: CredentialsConfig.AssumeRole => Some(r)
    case _ => None
  }

  private[client] def causes(e: Throwable): Seq[Throwable] =
    CauseChain.of(e)

  private val XmlCode = "<Code>([A-Za-z.]+)</Code>".r
  private val JsonType = "\"__type\"\\s*:\\s*\"(?:[^\"#]*#)?([A-Za-z.]+)\"".r

  /**
   * The AWS error code. Kinesis names it in the response; a 403 page from a proxy or a local
   * stand-in (moto) may only carry it in an XML or JSON body the JSON protocol did not parse.
   */
  private[client] def errorCode(e: AwsServiceException): Option[String] = {
    val details = Option(e.awsErrorDetails())
    details.flatMap(d => Option(d.errorCode())).filter(_.nonEmpty).orElse {
      details.flatMap(d => Option(d.rawResponse())).flatMap { raw =>
        val body = raw.asUtf8String()
        XmlCode.findFirstMatchIn(body).orElse(JsonType.findFirstMatchIn(body)).map(_.group(1))
      }
    }
  }

  private val XmlMessage = "<Message>([^<]*)</Message>".r

  private def awsMessage(e: AwsServiceException, code: Option[String]): String = {
    val details = Option(e.awsErrorDetails())
    val message = details.flatMap(d => Option(d.errorMessage())).filter(_.nonEmpty).orElse {
      details.flatMap(d => Option(d.rawResponse()))
        .flatMap(raw => XmlMessage.findFirstMatchIn(raw.asUtf8String()).map(_.group(1)))
    }
    val status = s"HTTP ${e.statusCode()}"
    (code, message) match {
      case (Some(c), Some(m)) => s"$c: $m ($status)"
      case (Some(c), None) => s"$c ($status)"
      case (None, Some(m)) => s"$m ($status)"
      case (None, None) => Option(e.getMessage).getOrElse(status)
    }
  }
}
