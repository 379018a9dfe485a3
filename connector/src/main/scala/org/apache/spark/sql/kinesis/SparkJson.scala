// SPDX-License-Identifier: Apache-2.0
package org.apache.spark.sql.kinesis

import java.io.Writer

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.json.{JacksonGenerator, JacksonParser, JSONOptions}
import org.apache.spark.sql.types.{DataType, StructType}
import org.apache.spark.unsafe.types.UTF8String

/**
 * Spark's own JSON reader and writer (what `from_json` and `to_json` use), for the schema
 * registry's JSON Schema functions. Their options class and writer are private to Spark SQL
 * on Spark 3.5, hence this bridge. Neither object is thread-safe: one per task.
 */
object SparkJson {

  /** Parses whole JSON documents into rows of `schema`; timestamps without an offset are in `timeZone`. */
  final class Reader(schema: StructType, timeZone: String) {
    private val parser = new JacksonParser(schema, new JSONOptions(Map("mode" -> "FAILFAST"), timeZone, ""),
      false, Nil)
    private val createParser = (factory: com.fasterxml.jackson.core.JsonFactory, bytes: Array[Byte]) =>
      factory.createParser(bytes)
    private val asText = (bytes: Array[Byte]) => UTF8String.fromBytes(bytes)

    /**
     * The row of `json` (UTF-8, the whole array: Spark keeps a string column's raw JSON text by
     * offsets from the array's start), None if it is not an object; Spark's exception if it does
     * not fit the schema.
     */
    def read(json: Array[Byte]): Option[InternalRow] = parser.parse(json, createParser, asText).headOption
  }

  /** Writes values of `dataType` (a struct) as JSON to `out`. */
  final class Generator(dataType: DataType, out: Writer, timeZone: String) {
    private val generator =
      new JacksonGenerator(dataType, out, new JSONOptions(Map.empty[String, String], timeZone, ""))

    def write(row: InternalRow): Unit = { generator.write(row); generator.flush() }
  }
}
