// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.schemaregistry

import java.io.IOException
import java.util.UUID

import scala.jdk.CollectionConverters._

import org.apache.avro.{AvroRuntimeException, Schema, SchemaCompatibility}
import org.apache.avro.generic.GenericDatumReader
import org.apache.avro.io.{BinaryDecoder, DecoderFactory}

import io.github.sparkkinesis.client.ConnectionConfig
import io.github.sparkkinesis.client.sdk.SchemaRegistryException

/** A record this query cannot read; the message names its schema version and why. */
final class RecordDecodeException(message: String, cause: Throwable = null)
  extends SchemaRegistryException(message, cause)

/**
 * Reads Glue Schema Registry Avro records as the query's reader schema. Each record's writer
 * version is looked up once ([[SchemaVersionCache]]) and resolved against the reader schema by
 * Avro's schema resolution (fields added with defaults, removed, promoted...), so producers can
 * move to a compatible version while the query runs. One decoder serves one task (not thread-safe).
 */
final class GsrAvroDecoder(connection: ConnectionConfig, reader: Schema) {
  private val convert = AvroToCatalyst.converter(reader)
  // By writer version: the resolving reader, or why records of that version cannot be read.
  private val readers = new java.util.HashMap[UUID, Either[String, GenericDatumReader[AnyRef]]]()
  private var decoder: BinaryDecoder = _

  /** The record as a Spark value of the reader schema's type; [[RecordDecodeException]] when it cannot be. */
  def decode(record: Array[Byte]): Any = {
    val payload =
      try GsrWireFormat.read(record)
      catch { case e: MalformedRecordException => throw new RecordDecodeException(e.getMessage, e) }
    var datumReader = readers.get(payload.versionId)
    if (datumReader == null) {
      datumReader = resolve(payload.versionId)
      readers.put(payload.versionId, datumReader)
    }
    datumReader match {
      case Left(why) => throw new RecordDecodeException(why)
      case Right(r) =>
        decoder = DecoderFactory.get().binaryDecoder(payload.bytes, payload.offset, payload.length, decoder)
        val datum =
          try r.read(null, decoder)
          catch {
            case e @ (_: IOException | _: AvroRuntimeException | _: ArrayIndexOutOfBoundsException) =>
              throw new RecordDecodeException(
                s"A record of schema version ${payload.versionId} is not valid Avro of that version: $e", e)
          }
        convert(datum)
    }
  }

  private def resolve(id: UUID): Either[String, GenericDatumReader[AnyRef]] = {
    SchemaVersionCache.readable(connection, id, "AVRO").flatMap { case (version, named) =>
      val writer =
        try new Schema.Parser().parse(version.definition)
        catch { case e: Exception => return Left(s"$named of a record is not a valid Avro schema: ${e.getMessage}") }
      val compatibility = SchemaCompatibility.checkReaderWriterCompatibility(reader, writer).getResult
      if (compatibility.getCompatibility == SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE)
        Right(new GenericDatumReader[AnyRef](writer, reader))
      else {
        val why = compatibility.getIncompatibilities.asScala
          .map(i => s"${i.getType} at ${i.getLocation}: ${i.getMessage}").mkString("; ")
        Left(s"$named of a record cannot be read as the query's schema ${reader.getFullName} " +
          s"(Avro schema resolution): $why")
      }
    }
  }
}
