// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.schemaregistry

import java.util.UUID

import org.apache.spark.sql.catalyst.InternalRow

import io.github.sparkkinesis.client.ConnectionConfig

/**
 * Reads Glue Schema Registry Protobuf records as rows of the query's message. A record's payload
 * is the index of its message among its writer version's messages ([[ProtoFile.indexed]], an
 * unsigned varint), then the message. Each writer version's `.proto` is fetched once
 * ([[SchemaVersionCache]]), parsed once per decoder, and checked against the query's message by
 * Protobuf's rules ([[ProtobufCompatibility]]); the bytes are then read by field number
 * ([[ProtobufReader]]), so a producer may add, remove or rename fields while the query runs.
 * One decoder serves one task (not thread-safe).
 */
final class GsrProtobufDecoder(connection: ConnectionConfig, readerFile: ProtoFile, readerMessage: ProtoMessage) {
  private val reader = new ProtobufReader(readerFile, readerMessage)
  // By writer version: its parsed .proto, or why its records cannot be read.
  private val writers = new java.util.HashMap[UUID, Either[String, ProtoFile]]()

  /** The record as a row of the query's message; [[RecordDecodeException]] when it cannot be. */
  def decode(record: Array[Byte]): InternalRow = {
    val payload =
      try GsrWireFormat.read(record)
      catch { case e: MalformedRecordException => throw new RecordDecodeException(e.getMessage, e) }
    val id = payload.versionId
    var writer = writers.get(id)
    if (writer == null) {
      writer = check(id)
      writers.put(id, writer)
    }
    val file = writer.fold(why => throw new RecordDecodeException(why), identity)
    try {
      val (index, start) = GsrProtobufPayload.messageIndex(payload.bytes, payload.offset, payload.length)
      if (index >= file.indexed.size)
        throw new ProtobufWireException(
          s"its message index is $index; schema version $id has ${file.indexed.size} messages")
      val written = file.indexed(index.toInt)
      if (written != readerMessage.fullName)
        throw new RecordDecodeException(
          s"A record of schema version $id is a $written message; the query reads ${readerMessage.fullName}")
      reader.read(payload.bytes, start, payload.offset + payload.length - start)
    } catch {
      case e: ProtobufWireException =>
        throw new RecordDecodeException(
          s"A record of schema version $id is not a valid Protobuf record of that version: ${e.getMessage}", e)
      case e: ArithmeticException =>
        throw new RecordDecodeException(s"A record of schema version $id has a time out of range: ${e.getMessage}", e)
    }
  }

  private def check(id: UUID): Either[String, ProtoFile] =
    SchemaVersionCache.readable(connection, id, "PROTOBUF").flatMap { case (version, named) =>
      val file =
        try ProtoParser.parse(version.definition)
        catch { case e: ProtoSchemaException => return Left(s"$named of a record cannot be read: ${e.getMessage}") }
      file.messages.get(readerMessage.fullName) match {
        case None => Right(file) // its records are of other messages, which decode() names
        case Some(written) =>
          val conflicts = ProtobufCompatibility.conflicts(readerFile, readerMessage, file, written)
          if (conflicts.isEmpty) Right(file)
          else Left(s"$named of a record cannot be read as the query's message ${readerMessage.fullName}: " +
            conflicts.mkString("; "))
      }
    }
}
