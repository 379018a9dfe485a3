// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.wire

import java.nio.charset.StandardCharsets.UTF_8
import java.util.Arrays
import io.github.sparkkinesis.client.UserRecords

/**
 * Reads the records of a SubscribeToShardEvent, which the SDK always asks for in JSON (RFC 8259),
 * straight into [[UserRecords.Expansion]]: one copy of each record's data, no SDK objects. The
 * rest of the event (`ContinuationSequenceNumber`, `MillisBehindLatest`, `ChildShards`) is handed
 * back with `Records` emptied, for the SDK to read as usual. Values are read as the SDK reads
 * them: data is base64 text, the arrival time is epoch seconds (a number, fractions below the
 * millisecond cut off), `null` is a missing field and unknown fields are skipped.
 *
 * Anything else (not an object, a record without its partition key or sequence number, a string with escapes where base64 or a field name is
 * expected, a quoted time, malformed JSON, even in a field it skips: raw control characters or
 * malformed escapes in a string, a number such as `01` or `1.`) is a
 * [[SubscribeEventJson.Unreadable]], on which the caller lets the SDK read the event instead.
 */
private[client] object SubscribeEventJson {
  final class Unreadable(why: String) extends RuntimeException(why, null, false, false)

  private val RecordsField = Array("Records".getBytes(UTF_8))
  private val RecordFields =
    Array("Data", "PartitionKey", "SequenceNumber", "ApproximateArrivalTimestamp").map(_.getBytes(UTF_8))
  private val EmptyArray = "[]".getBytes(UTF_8)

  /**
   * Adds the event's records to `out` and returns the event with `"Records":[]`, or the event
   * itself when it has no records field; or throws [[Unreadable]] (then `out` may hold some
   * records: the caller discards it).
   */
  def split(event: Array[Byte], from: Int, until: Int, out: UserRecords.Expansion): Array[Byte] = {
    val in = new JsonReader(event, from, until)
    var recordsAt = -1
    var recordsEnd = -1
    in.expect('{')
    if (!in.consume('}')) {
      while ({
        val field = in.key(RecordsField)
        in.expect(':')
        if (field == 0) {
          if (recordsAt >= 0) throw new Unreadable("the event has two Records fields")
          in.skipSpace()
          recordsAt = in.pos
          if (in.atNull()) in.skipValue() else records(in, out)
          recordsEnd = in.pos
        } else in.skipValue()
        in.consume(',')
      }) ()
      in.expect('}')
    }
    in.skipSpace()
    if (in.pos != until) throw new Unreadable("the event has more after its object")
    if (recordsAt < 0) Arrays.copyOfRange(event, from, until)
    else {
      val rest = new Array[Byte](until - from - (recordsEnd - recordsAt) + EmptyArray.length)
      val head = recordsAt - from
      System.arraycopy(event, from, rest, 0, head)
      System.arraycopy(EmptyArray, 0, rest, head, EmptyArray.length)
      System.arraycopy(event, recordsEnd, rest, head + EmptyArray.length, until - recordsEnd)
      rest
    }
  }

  private def records(in: JsonReader, out: UserRecords.Expansion): Unit = {
    in.expect('[')
    if (!in.consume(']')) {
      while ({
        record(in, out)
        in.consume(',')
      }) ()
      in.expect(']')
    }
  }

  private def record(in: JsonReader, out: UserRecords.Expansion): Unit = {
    var partitionKey: String = null
    var data: Array[Byte] = null
    var sequenceNumber: String = null
    var arrivalMillis = 0L
    in.expect('{')
    if (!in.consume('}')) {
      while ({
        val field = in.key(RecordFields)
        in.expect(':')
        if (in.atNull()) in.skipValue()
        else field match {
          case 0 => data = in.base64()
          case 1 => partitionKey = in.text()
          case 2 => sequenceNumber = in.text()
          case 3 => arrivalMillis = in.epochSecondsAsMillis()
          case _ => in.skipValue()
        }
        in.consume(',')
      }) ()
      in.expect('}')
    }
    // Kinesis sends both with every record: one without them is left to the SDK's read, which reports it.
    if (partitionKey == null || sequenceNumber == null)
      throw new Unreadable("a record without its key or sequence number")
    out.add(partitionKey, if (data == null) Array.emptyByteArray else data, sequenceNumber, arrivalMillis)
  }
}
