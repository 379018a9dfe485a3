// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.schemaregistry

import java.net.InetSocketAddress
import java.nio.charset.StandardCharsets.UTF_8
import java.util.UUID
import java.util.concurrent.atomic.AtomicInteger

import com.fasterxml.jackson.databind.ObjectMapper
import com.sun.net.httpserver.{HttpExchange, HttpServer}

/**
 * A Glue Schema Registry on a loopback port that answers GetSchemaVersion (by id, or by schema
 * name and number) for the versions a test adds, EntityNotFoundException otherwise, and counts
 * the calls. The end-to-end tests use moto's registry; this one keeps the unit suites in the JVM.
 */
final class StandInRegistry extends AutoCloseable {
  private val json = new ObjectMapper()
  private val versions = scala.collection.mutable.LinkedHashMap.empty[UUID, (String, Long, String, String)]
  val calls = new AtomicInteger()
  private val server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0)
  server.createContext("/", (exchange: HttpExchange) => answer(exchange))
  server.start()

  def endpoint: String = s"http://127.0.0.1:${server.getAddress.getPort}"

  /** Adds `definition` as the next version of `schema`; its id. */
  def add(schema: String, definition: String, status: String = "AVAILABLE", format: String = "AVRO"): UUID =
    synchronized {
      val id = UUID.randomUUID()
      val number = versions.values.count(_._1 == schema) + 1L
      versions(id) = (schema, number, definition, status + "|" + format)
      id
    }

  private def answer(exchange: HttpExchange): Unit = {
    calls.incrementAndGet()
    val request = json.readTree(exchange.getRequestBody)
    val found = synchronized {
      if (request.has("SchemaVersionId")) versions.get(UUID.fromString(request.get("SchemaVersionId").asText()))
        .map(UUID.fromString(request.get("SchemaVersionId").asText()) -> _)
      else {
        val schema = request.path("SchemaId").path("SchemaName").asText()
        val ofSchema = versions.filter(_._2._1 == schema)
        val number = request.path("SchemaVersionNumber")
        if (number.path("LatestVersion").asBoolean(false)) ofSchema.lastOption
        else ofSchema.find(_._2._2 == number.path("VersionNumber").asLong())
      }
    }
    val (status, body) = found match {
      case Some((id, (schema, number, definition, statusAndFormat))) =>
        val Array(versionStatus, format) = statusAndFormat.split('|')
        200 -> json.createObjectNode().put("SchemaVersionId", id.toString)
          .put("SchemaArn", s"arn:aws:glue:us-east-1:123456789012:schema/test-registry/$schema")
          .put("VersionNumber", number).put("DataFormat", format).put("SchemaDefinition", definition)
          .put("Status", versionStatus)
      case None =>
        400 -> json.createObjectNode().put("__type", "EntityNotFoundException").put("message",
          "Schema version is not found.")
    }
    val bytes = json.writeValueAsString(body).getBytes(UTF_8)
    exchange.sendResponseHeaders(status, bytes.length.toLong)
    exchange.getResponseBody.write(bytes)
    exchange.close()
  }

  override def close(): Unit = server.stop(0)
}
