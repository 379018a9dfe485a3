// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.sdk

import java.io.{ByteArrayInputStream, IOException}
import java.net.URI
import java.nio.charset.StandardCharsets.UTF_8
import java.time.Duration
import java.util.UUID

import scala.util.control.NonFatal

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import com.fasterxml.jackson.databind.node.ObjectNode
import software.amazon.awssdk.http.{ContentStreamProvider, HttpExecuteRequest, SdkHttpFullRequest, SdkHttpMethod}
import software.amazon.awssdk.http.auth.aws.signer.{AwsV4FamilyHttpSigner, AwsV4HttpSigner}
import software.amazon.awssdk.http.auth.spi.signer.{SignRequest, SignedRequest}
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity
import software.amazon.awssdk.utils.{AttributeMap, IoUtils}

import io.github.sparkkinesis.client.ConnectionConfig
import io.github.sparkkinesis.client.credentials.AwsCredentials
import io.github.sparkkinesis.client.http.SyncHttp

/**
 * The registry could not answer (unreachable, access denied, an unknown schema), or a record
 * cannot be read with the schema the query fixed; the message names the registry, the schema or
 * the schema version concerned.
 */
class SchemaRegistryException(message: String, cause: Throwable = null) extends RuntimeException(message, cause)

/** The registry knows no such schema, schema version or registry (GSR's EntityNotFoundException). */
final class SchemaNotFoundException(message: String) extends SchemaRegistryException(message)

/** A schema version as the registry describes it. */
final case class SchemaVersion(
    id: UUID,
    schemaArn: String,
    versionNumber: Long,
    dataFormat: String,
    definition: String,
    status: String)

/**
 * The few Glue Schema Registry calls the functions make (GetSchemaVersion, GetSchemaByDefinition,
 * RegisterSchemaVersion, CreateSchema), as signed JSON requests over the connector's own HTTP
 * client and credentials: the SDK's Glue client would add megabytes to the jar for four calls.
 * Calls are rare (once per schema version and JVM, see [[SchemaVersionCache]]), so each call
 * builds its HTTP client and closes it after. Throttling, server errors and I/O failures are
 * retried a few times with backoff; other failures name the registry, the call and AWS's answer.
 * Used by the schema registry functions (`schemaregistry/`).
 */
final class GlueRegistryApi(connection: ConnectionConfig) {
  import GlueRegistryApi._

  private val endpoint: URI =
    URI.create(connection.endpoint.getOrElse(s"https://glue.${connection.region}.amazonaws.com"))

  def where: String = s"the Glue Schema Registry at $endpoint (region ${connection.region})"

  def schemaVersion(id: UUID): SchemaVersion =
    version(call("GetSchemaVersion", json.createObjectNode().put("SchemaVersionId", id.toString)))

  /** `versionNumber` None: the latest version. */
  def schemaVersion(registry: String, schema: String, versionNumber: Option[Long]): SchemaVersion = {
    val body = json.createObjectNode()
    body.set[JsonNode]("SchemaId", schemaId(registry, schema))
    val number = json.createObjectNode()
    versionNumber match {
      case Some(n) => number.put("VersionNumber", n)
      case None => number.put("LatestVersion", true)
    }
    body.set[JsonNode]("SchemaVersionNumber", number)
    version(call("GetSchemaVersion", body))
  }

  /** The id of the version of `schema` whose definition is `definition`, if there is one. */
  def versionIdOf(registry: String, schema: String, definition: String): Option[UUID] = {
    val body = json.createObjectNode().put("SchemaDefinition", definition)
    body.set[JsonNode]("SchemaId", schemaId(registry, schema))
    try Some(UUID.fromString(call("GetSchemaByDefinition", body).path("SchemaVersionId").asText()))
    catch { case _: SchemaNotFoundException => None }
  }

  /** Registers `definition` as a new version of `schema` (which must exist); its id. */
  def register(registry: String, schema: String, definition: String): UUID = {
    val body = json.createObjectNode().put("SchemaDefinition", definition)
    body.set[JsonNode]("SchemaId", schemaId(registry, schema))
    UUID.fromString(call("RegisterSchemaVersion", body).path("SchemaVersionId").asText())
  }

  /** Creates `schema` with `definition` as its first version; its id. */
  def createSchema(registry: String, schema: String, dataFormat: String, compatibility: String,
      definition: String): UUID = {
    val body = json.createObjectNode()
      .put("SchemaName", schema).put("DataFormat", dataFormat).put("Compatibility", compatibility)
      .put("SchemaDefinition", definition)
    body.set[JsonNode]("RegistryId", json.createObjectNode().put("RegistryName", registry))
    UUID.fromString(call("CreateSchema", body).path("SchemaVersionId").asText())
  }

  private def schemaId(registry: String, schema: String): ObjectNode =
    json.createObjectNode().put("RegistryName", registry).put("SchemaName", schema)

  private def version(answer: JsonNode): SchemaVersion = SchemaVersion(
    UUID.fromString(answer.path("SchemaVersionId").asText()),
    answer.path("SchemaArn").asText(),
    answer.path("VersionNumber").asLong(),
    answer.path("DataFormat").asText(),
    answer.path("SchemaDefinition").asText(),
    answer.path("Status").asText())

  private def call(action: String, body: ObjectNode): JsonNode = {
    val payload = json.writeValueAsBytes(body)
    var attempt = 1
    while (true) {
      val outcome =
        try Right(once(action, payload))
        catch { case e: IOException => Left(e) }
      outcome match {
        case Right((status, answer)) if status / 100 == 2 => return answer
        case Right((status, answer)) =>
          val kind = answer.path("__type").asText("").split('#').last
          val message = Option(answer.path("message").asText(null)).orElse(Option(answer.path("Message").asText(null)))
            .getOrElse(s"HTTP $status")
          val retryable = status >= 500 || kind.contains("Throttling") || kind == "TooManyRequestsException"
          if (!retryable || attempt >= MaxAttempts) throw failure(action, status, kind, message)
        case Left(e) =>
          if (attempt >= MaxAttempts)
            throw new SchemaRegistryException(
              s"$where could not be reached ($action, $attempt attempts): ${e.getMessage}; check the 'endpoint' and " +
                "'region' options and the network", e)
      }
      Thread.sleep(BackoffMillis << (attempt - 1))
      attempt += 1
    }
    throw new IllegalStateException("unreachable")
  }

  private def failure(action: String, status: Int, kind: String, message: String): SchemaRegistryException = {
    val what = s"$where answered $action with ${if (kind.nonEmpty) kind else s"HTTP $status"}: $message"
    val denied = Set("AccessDeniedException", "AccessDenied", "UnrecognizedClientException",
      "InvalidSignatureException", "ExpiredTokenException")
    kind match {
      case "EntityNotFoundException" => new SchemaNotFoundException(what)
      case _ if denied(kind) || status == 403 =>
        new SchemaRegistryException(s"$what. The credentials in use " +
          s"(${AwsCredentials.describeInUse(connection.credentials)}) need glue:$action on the registry and schema")
      case _ => new SchemaRegistryException(what)
    }
  }

  /** One signed request; the HTTP status and the parsed JSON answer. */
  private def once(action: String, payload: Array[Byte]): (Int, JsonNode) = {
    val unsigned = SdkHttpFullRequest.builder()
      .method(SdkHttpMethod.POST)
      .uri(endpoint)
      .encodedPath(if (endpoint.getRawPath == null || endpoint.getRawPath.isEmpty) "/" else endpoint.getRawPath)
      .putHeader("Content-Type", "application/x-amz-json-1.1")
      .putHeader("X-Amz-Target", s"AWSGlue.$action")
      .putHeader("Content-Length", payload.length.toString)
      .build()
    val body = ContentStreamProvider.fromByteArray(payload)
    val signed: SignedRequest = AwsCredentials.borrow[SignedRequest](connection.credentials) { provider =>
      val identity: AwsCredentialsIdentity = provider.resolveCredentials()
      AwsV4HttpSigner.create().sign(SignRequest.builder(identity).request(unsigned).payload(body)
          .putProperty(AwsV4FamilyHttpSigner.SERVICE_SIGNING_NAME, "glue")
          .putProperty(AwsV4HttpSigner.REGION_NAME, connection.region).build())
    }
    val http = SyncHttp.builder(ConnectTimeout, SocketTimeout, connection.proxy).buildWithDefaults(AttributeMap.empty())
    try {
      val request = HttpExecuteRequest.builder().request(signed.request())
      signed.payload().ifPresent(p => request.contentStreamProvider(p))
      val response = http.prepareRequest(request.build()).call()
      val bytes =
        if (response.responseBody().isPresent) IoUtils.toByteArray(response.responseBody().get()) else Array.empty[Byte]
      val answer =
        try if (bytes.isEmpty) json.createObjectNode() else json.readTree(new ByteArrayInputStream(bytes))
        catch { case NonFatal(_) => json.createObjectNode().put("message", new String(bytes, UTF_8).take(500)) }
      (response.httpResponse().statusCode(), answer)
    } finally http.close()
  }
}

object GlueRegistryApi {
  val MaxAttempts = 4
  val BackoffMillis = 200L
  val ConnectTimeout: Duration = Duration.ofSeconds(10)
  val SocketTimeout: Duration = Duration.ofSeconds(30)
  private val json = new ObjectMapper()
}
