// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.wire

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, InputStream}
import java.nio.charset.StandardCharsets.UTF_8
import io.github.sparkkinesis.client.UserRecords

/**
 * Reads the records of a GetRecords answer in CBOR (RFC 8949), the encoding the SDK asks Kinesis
 * for, straight into [[UserRecords.Expansion]]: one copy of each record's data, no SDK objects.
 * The rest of the answer (`NextShardIterator`, `MillisBehindLatest`, `ChildShards`) is handed
 * back as CBOR for the SDK to read as usual. Values are read as the SDK reads them: the arrival
 * time is epoch milliseconds (any number a long holds, fractions cut off, other tags ignored),
 * data is a byte string (or base64 text), `null` is a missing field and unknown fields are skipped.
 *
 * Anything else (not a map, a truncated body, an unexpected type, a record without its
 * partition key or sequence number, a length or count beyond the bytes left, items nested more than [[CborReader.MaxDepth]] deep), and whatever the SDK's parser
 * refuses or reads otherwise (text that is not UTF-8, base64 it cannot decode, a number beyond a
 * long, tags it gives a meaning, map keys other than text and integers) is a
 * [[GetRecordsCbor.Unreadable]], on which the caller lets the SDK read the answer instead.
 */
private[client] object GetRecordsCbor {
  final class Unreadable(why: String) extends RuntimeException(why, null, false, false)

  import CborCodes._

  /**
   * Adds the answer's records to `out` and returns the answer without its `Records` field, in
   * an array of its own, or throws [[Unreadable]] (then `out` may hold some records: the caller
   * discards it).
   */
  def split(body: BodyPieces, out: UserRecords.Expansion): InputStream = {
    val in = new CborReader(body)
    if (in.head() != MajorMap) throw new Unreadable(s"the answer is CBOR major type ${in.major}, not a map")
    val count = in.argument
    val fieldsStart = in.pos
    var recordsAt = -1
    var recordsEnd = -1
    var fields = 0L
    while (if (count == Indefinite) !in.atBreak() else fields < count) {
      val fieldAt = in.pos
      if (in.key(RecordsField) == 0) {
        // The SDK keeps one of two; the answer without one of them would still hold the other.
        if (recordsAt >= 0) throw new Unreadable("the answer has two Records fields")
        if (!in.atNull()) records(in, out) else in.skip()
        recordsAt = fieldAt
        recordsEnd = in.pos
      } else in.skip()
      fields += 1
    }
    // The rest is a copy either way: the caller hands the body's pieces on to other answers.
    if (recordsAt < 0) new ByteArrayInputStream(body.copy(0, body.length))
    else {
      val rest = new ByteArrayOutputStream(body.length - (recordsEnd - recordsAt) + 9)
      if (count == Indefinite) rest.write(0xbf) else writeHead(rest, MajorMap, count - 1)
      body.writeTo(rest, fieldsStart, recordsAt - fieldsStart)
      body.writeTo(rest, recordsEnd, body.length - recordsEnd)
      new ByteArrayInputStream(rest.toByteArray)
    }
  }

  private def records(in: CborReader, out: UserRecords.Expansion): Unit = {
    if (in.head() != MajorArray) throw new Unreadable(s"Records is CBOR major type ${in.major}, not an array")
    val count = in.argument
    var n = 0L
    while (if (count == Indefinite) !in.atBreak() else n < count) {
      record(in, out)
      n += 1
    }
  }

  private val RecordsField = Array("Records".getBytes(UTF_8))
  private val RecordFields =
    Array("Data", "PartitionKey", "SequenceNumber", "ApproximateArrivalTimestamp").map(_.getBytes(UTF_8))

  private def record(in: CborReader, out: UserRecords.Expansion): Unit = {
    if (in.head() != MajorMap) throw new Unreadable(s"a record is CBOR major type ${in.major}, not a map")
    val count = in.argument
    var partitionKey: String = null
    var data: Array[Byte] = null
    var sequenceNumber: String = null
    var arrivalMillis = 0L
    var n = 0L
    while (if (count == Indefinite) !in.atBreak() else n < count) {
      val field = in.key(RecordFields)
      if (in.atNull()) in.skip()
      else field match {
        case 0 => data = in.blob()
        case 1 => partitionKey = in.text()
        case 2 => sequenceNumber = in.text()
        case 3 => arrivalMillis = in.number()
        case _ => in.skip()
      }
      n += 1
    }
    // Kinesis sends both with every record: one without them is left to the SDK's read, which reports it.
    if (partitionKey == null || sequenceNumber == null)
      throw new Unreadable("a record without its key or sequence number")
    out.add(partitionKey, if (data == null) Array.emptyByteArray else data, sequenceNumber, arrivalMillis)
  }
}
