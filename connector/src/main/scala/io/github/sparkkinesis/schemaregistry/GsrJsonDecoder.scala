// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.schemaregistry

import java.util.UUID

import scala.util.control.NonFatal

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.kinesis.SparkJson
import org.apache.spark.sql.types.{ArrayType, DataType, MapType, StructType}

import io.github.sparkkinesis.client.ConnectionConfig

/**
 * Reads Glue Schema Registry JSON Schema records (UTF-8 JSON after the header) as rows of the
 * query's type, with Spark's own JSON parser (the one `from_json` uses): properties the query's
 * schema does not have are skipped, those a record lacks are null. Each record's writer version
 * is looked up once ([[SchemaVersionCache]]) and checked: available, JSON, and no property of a
 * type the query reads differently ([[JsonSchemaTypes.conflicts]]). A required property that is
 * null or missing makes the record unreadable. One decoder serves one task (not thread-safe).
 */
final class GsrJsonDecoder(connection: ConnectionConfig, readerType: StructType, timeZone: String) {
  private val reader = new SparkJson.Reader(readerType, timeZone)
  // By writer version: None if its records can be read, else why not.
  private val checked = new java.util.HashMap[UUID, Option[String]]()

  /** The record as a row of the query's type; [[RecordDecodeException]] when it cannot be. */
  def decode(record: Array[Byte]): InternalRow = {
    val payload =
      try GsrWireFormat.read(record)
      catch { case e: MalformedRecordException => throw new RecordDecodeException(e.getMessage, e) }
    var problem = checked.get(payload.versionId)
    if (problem == null) {
      problem = check(payload.versionId)
      checked.put(payload.versionId, problem)
    }
    problem.foreach(why => throw new RecordDecodeException(why))
    val json =
      if (payload.offset == 0) payload.bytes
      else java.util.Arrays.copyOfRange(payload.bytes, payload.offset, payload.offset + payload.length)
    val parsed =
      try reader.read(json)
      catch {
        case NonFatal(e) =>
          throw new RecordDecodeException(
            s"A record of schema version ${payload.versionId} is not JSON of the query's schema: ${reason(e)}", e)
      }
    val row = parsed.getOrElse(throw new RecordDecodeException(
        s"A record of schema version ${payload.versionId} is not a JSON object"))
    missingRequired(readerType, row, "").foreach { property =>
      throw new RecordDecodeException(
        s"A record of schema version ${payload.versionId} has no value for the required property $property")
    }
    row
  }

  private def check(id: UUID): Option[String] =
    SchemaVersionCache.readable(connection, id, "JSON") match {
      case Left(why) => Some(why)
      case Right((version, named)) =>
        val writer =
          try JsonSchemaTypes.rootType(version.definition)
          catch { case NonFatal(e) => return Some(s"$named of a record cannot be read: ${e.getMessage}") }
        val conflicts = JsonSchemaTypes.conflicts(readerType, writer)
        if (conflicts.isEmpty) None
        else Some(s"$named of a record cannot be read as the query's schema: ${conflicts.mkString("; ")}")
    }

  /** The first non-nullable field of `struct` that is null in `row`, as a path. */
  private def missingRequired(struct: StructType, row: InternalRow, at: String): Option[String] =
    first(struct.fields.indices.iterator.flatMap { i =>
      val field = struct.fields(i)
      val path = s"$at/${field.name}"
      if (row.isNullAt(i)) if (field.nullable) None else Some(path)
      else nested(field.dataType, row.get(i, field.dataType), path)
    })

  private def nested(dataType: DataType, value: Any, at: String): Option[String] = dataType match {
    case s: StructType => missingRequired(s, value.asInstanceOf[InternalRow], at)
    case ArrayType(element, _) =>
      val array = value.asInstanceOf[org.apache.spark.sql.catalyst.util.ArrayData]
      first((0 until array.numElements()).iterator.flatMap { i =>
        if (array.isNullAt(i)) None else nested(element, array.get(i, element), s"$at[$i]")
      })
    case MapType(_, values: StructType, _) =>
      val map = value.asInstanceOf[org.apache.spark.sql.catalyst.util.MapData].valueArray()
      first((0 until map.numElements()).iterator.flatMap { i =>
        if (map.isNullAt(i)) None else missingRequired(values, map.getStruct(i, values.size), s"$at{}")
      })
    case _ => None
  }

  private def first(paths: Iterator[String]): Option[String] = if (paths.hasNext) Some(paths.next()) else None

  // Spark's parser wraps what went wrong (BadRecordException); its cause says what.
  private def reason(e: Throwable): String = Option(e.getCause).getOrElse(e).getMessage
}
