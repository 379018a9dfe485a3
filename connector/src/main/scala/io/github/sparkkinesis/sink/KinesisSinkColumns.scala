// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import java.nio.charset.StandardCharsets
import java.util.Locale

import org.apache.spark.sql.Row
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.{BinaryType, DataType, StringType, StructField, StructType}

import io.github.sparkkinesis.client.PutEntry
import io.github.sparkkinesis.errors.KinesisErrors
import io.github.sparkkinesis.options.KinesisSourceOptions

/**
 * Where the sink finds each record in the rows it writes: the ordinals of `data` (binary or
 * string), `partitionKey`, and the optional `explicitHashKey` and `stream`. Other columns are
 * ignored, so the source's own rows (which carry `shardId`, `sequenceNumber`, ...) can be
 * written to another stream as they are.
 */
final case class KinesisSinkColumns(
    data: Int,
    dataIsString: Boolean,
    partitionKey: Int,
    explicitHashKey: Option[Int],
    stream: Option[Int]) {

  /**
   * The stream and the entry a row becomes. Every check Kinesis would make on one record is
   * made here, before the row is queued, so a bad row fails the task before it is sent; its
   * size only against the largest any stream takes (the stream's own limit is
   * [[RecordSizeLimits]]'s).
   */
  def record(row: InternalRow, streamName: Option[String]): (String, PutEntry) = {
    def text(ordinal: Int): String = if (row.isNullAt(ordinal)) null else row.getUTF8String(ordinal).toString
    val target = streamName.getOrElse(KinesisSinkColumns.checkedStream(text(stream.get)))
    val bytes =
      if (row.isNullAt(data)) null else if (dataIsString) row.getUTF8String(data).getBytes else row.getBinary(data)
    target -> KinesisSinkColumns.entry(target, text(partitionKey), bytes, explicitHashKey.flatMap(o => Option(text(o))))
  }

  /** The same for a [[Row]], as the foreach sink gets them (see [[KinesisForeachWriter]]). */
  def record(row: Row, streamName: Option[String]): (String, PutEntry) = {
    def text(ordinal: Int): String = if (row.isNullAt(ordinal)) null else row.getString(ordinal)
    val target = streamName.getOrElse(KinesisSinkColumns.checkedStream(text(stream.get)))
    val bytes = if (row.isNullAt(data)) null
    else if (dataIsString) row.getString(data).getBytes(StandardCharsets.UTF_8)
    else row.getAs[Array[Byte]](data)
    target -> KinesisSinkColumns.entry(target, text(partitionKey), bytes, explicitHashKey.flatMap(o => Option(text(o))))
  }
}

object KinesisSinkColumns {
  val Data = "data"
  val PartitionKey = "partitionKey"
  val ExplicitHashKey = "explicitHashKey"
  val Stream = "stream"

  val MaxPartitionKeyChars = 256
  private val MaxHashKey = BigInt(2).pow(128) - 1

  /**
   * Finds the columns in the schema of the DataFrame being written, or fails naming the column,
   * what it must be and how to get there. Names match as Spark matches them by default: an exact
   * match first, else the one that differs only in case.
   */
  def resolve(schema: StructType, streamNameGiven: Boolean): KinesisSinkColumns = {
    val names = schema.fieldNames.toSeq
    def find(name: String): Option[(Int, StructField)] = {
      val exact = schema.fields.indexWhere(_.name == name)
      val index = if (exact >= 0) exact
      else {
        val folded =
          schema.fields.zipWithIndex.filter(_._1.name.toLowerCase(Locale.ROOT) == name.toLowerCase(Locale.ROOT))
        if (folded.length == 1) folded.head._2 else -1
      }
      if (index >= 0) Some(index -> schema.fields(index)) else None
    }
    def required(name: String, hint: String): (Int, StructField) =
      find(name).getOrElse(throw KinesisErrors.sinkMissingColumn(name, hint, names))
    def stringColumn(found: (Int, StructField), hint: String): Int = found match {
      case (index, field) if isString(field.dataType) => index
      case (_, field) => throw KinesisErrors.sinkInvalidColumnType(field.name, field.dataType.sql, "STRING", hint)
    }

    val (dataIndex, dataField) = required(Data,
      "it holds each record's payload, binary or string, " +
        "e.g. to_json(struct(*)) AS data")
    val dataIsString = dataField.dataType match {
      case BinaryType => false
      case t if isString(t) => true
      case other => throw KinesisErrors.sinkInvalidColumnType(dataField.name, other.sql, "BINARY or STRING",
          "Serialize it first, e.g. to_json(struct(*)) AS data, or CAST(x AS STRING) AS data.")
    }
    val partitionKey = stringColumn(required(PartitionKey,
        "every Kinesis record needs a partition " +
          s"key of 1 to $MaxPartitionKeyChars characters, which picks its shard; e.g. " +
          "CAST(id AS STRING) AS partitionKey, or uuid() AS partitionKey to spread records evenly"),
      s"Cast it, e.g. CAST(id AS STRING) AS $PartitionKey.")
    val hashKey = find(ExplicitHashKey).map(stringColumn(_,
        s"It is a decimal number from 0 to 2^128 - 1; cast it, e.g. CAST(h AS STRING) AS $ExplicitHashKey."))
    val stream = if (streamNameGiven) None
    else Some(stringColumn(required(Stream,
          "without the option 'streamName', each row names its stream in a string column 'stream'; " +
            "set 'streamName' to write every row to one stream"),
        s"Cast it, e.g. CAST(s AS STRING) AS $Stream."))
    KinesisSinkColumns(dataIndex, dataIsString, partitionKey, hashKey, stream)
  }

  /** A row's stream name from its `stream` column (null when the column is null), checked. */
  def checkedStream(name: String): String = {
    if (name == null) {
      throw KinesisErrors.sinkInvalidValue(s"column '$Stream' is null; name each row's stream " +
        "there, or set the option 'streamName'")
    }
    if (!KinesisSourceOptions.StreamNamePattern.pattern.matcher(name).matches()) {
      throw KinesisErrors.sinkInvalidValue(s"column '$Stream' holds '$name', which is not a stream " +
        "name (1 to 128 letters, digits, '_', '.' or '-')")
    }
    name
  }

  /**
   * The entry of one record bound for `target`, checked as Kinesis would check it: `key` and
   * `bytes` are null where the row holds NULL.
   */
  def entry(target: String, key: String, bytes: Array[Byte], hashKey: Option[String]): PutEntry = {
    if (key == null) {
      throw KinesisErrors.sinkInvalidValue(s"column '$PartitionKey' is null; every Kinesis record " +
        s"needs a partition key of 1 to $MaxPartitionKeyChars characters")
    }
    val keyChars = key.codePointCount(0, key.length)
    if (keyChars == 0 || keyChars > MaxPartitionKeyChars) {
      val what = if (keyChars == 0) "is empty" else s"has $keyChars characters"
      throw KinesisErrors.sinkInvalidValue(s"column '$PartitionKey' $what; Kinesis takes partition " +
        s"keys of 1 to $MaxPartitionKeyChars characters")
    }
    if (bytes == null) {
      throw KinesisErrors.sinkInvalidValue(s"column '$Data' is null; write an empty value instead " +
        "if a record carries no data")
    }
    hashKey.foreach { text =>
      if (!isHashKey(text)) {
        throw KinesisErrors.sinkInvalidValue(s"column '$ExplicitHashKey' holds a value of " +
          s"${text.length} characters that is not a decimal number from 0 to 2^128 - 1")
      }
    }
    val size = bytes.length.toLong + key.getBytes(StandardCharsets.UTF_8).length
    if (size > RecordSizeLimits.MaxBytes) { // More than any stream takes: no need to ask which.
      throw KinesisErrors.sinkRecordTooLarge(target, size, bytes.length, size - bytes.length, RecordSizeLimits.MaxBytes)
    }
    PutEntry(key, bytes, hashKey, size.toInt)
  }

  private def isString(t: DataType): Boolean = t.isInstanceOf[StringType]

  private def isHashKey(text: String): Boolean =
    text.nonEmpty && text.length <= 39 && text.forall(c => c >= '0' && c <= '9') && BigInt(text) <= MaxHashKey
}
