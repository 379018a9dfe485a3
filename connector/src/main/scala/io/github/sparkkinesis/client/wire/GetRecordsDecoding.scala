// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.wire

import java.io.InputStream
import java.util.Optional

import scala.util.Try

import software.amazon.awssdk.core.interceptor.{Context, ExecutionAttribute, ExecutionAttributes, ExecutionInterceptor}
import software.amazon.awssdk.http.SdkHttpResponse

import io.github.sparkkinesis.kpl.RangeCheck
import io.github.sparkkinesis.client.{KinesisRecord, KplCounts, UserRecords}

/**
 * GetRecords answers' records read by [[GetRecordsCbor]] instead of the SDK's unmarshaller,
 * which was the largest cost of a polling read (an SDK `Record`, `SdkBytes` and `Instant` per
 * record, through a generic JSON-model parser). The SDK still sends, signs, times and retries
 * every call and reads every error (throttling, expired iterators, server errors) as before:
 * the [[Interceptor]] only takes the `Records` field out of a successful CBOR answer, and leaves
 * any other answer (JSON, a checksum header, a body it cannot read) to the SDK whole.
 */
private[client] object GetRecordsDecoding {

  /** What one GetRecords call's answer held, for the shard's hash range; empty if the SDK read it. */
  final class Decoded(rangeCheck: Option[RangeCheck]) {
    @volatile private var found: Option[(Seq[KinesisRecord], KplCounts)] = None

    def records: Option[(Seq[KinesisRecord], KplCounts)] = found

    /**
     * The answer without its records, having read them, and the body's pieces released (the
     * records and the rest are copies); or the answer itself if it cannot be read.
     */
    private[GetRecordsDecoding] def read(body: BodyPieces): InputStream =
      try {
        val out = new UserRecords.Expansion(rangeCheck, 0)
        val rest = GetRecordsCbor.split(body, out)
        found = Some(out.result())
        body.release()
        rest
      } catch {
        case _: GetRecordsCbor.Unreadable =>
          found = None
          body.inputStream()
      }
  }

  /** Set on a GetRecords request: where its interceptor leaves the records. */
  val Attribute = new ExecutionAttribute[Decoded]("io.github.sparkkinesis.GetRecordsDecoded")

  private val Cbor = "application/x-amz-cbor-1.1"

  /** GetRecords answers hold at most 10 MiB of records; a larger declared length is read as if undeclared. */
  private val MaxDeclared = 64L << 20

  /**
   * Registered on every synchronous Kinesis client; acts on requests that carry [[Attribute]].
   * It reads an answer's body in pieces of `pool` (see [[BodyPieces]]).
   */
  class Interceptor(pool: PiecePool) extends ExecutionInterceptor {
    override def modifyHttpResponseContent(
        context: Context.ModifyHttpResponse, attributes: ExecutionAttributes): Optional[InputStream] = {
      val decoded = attributes.getAttribute(Attribute)
      val body = context.responseBody()
      if (decoded == null || !body.isPresent || !readable(context.httpResponse())) body
      else {
        val pieces =
          try BodyPieces.read(body.get(), declaredLength(context.httpResponse()), pool)
          finally body.get().close()
        Optional.of(decoded.read(pieces))
      }
    }

    /** The body's length as the answer declares it, or -1 (none, or one no GetRecords answer has). */
    private def declaredLength(response: SdkHttpResponse): Long = {
      val header = response.firstMatchingHeader("Content-Length")
      if (!header.isPresent) -1L
      else Try(header.get.trim.toLong).toOption.filter(n => n > 0 && n <= MaxDeclared).getOrElse(-1L)
    }

    /** A success in CBOR, with no checksum the SDK would check against the changed body, nor an encoding. */
    private def readable(response: SdkHttpResponse): Boolean =
      response.isSuccessful &&
        response.firstMatchingHeader("Content-Type").filter(_.trim.equalsIgnoreCase(Cbor)).isPresent &&
        !response.firstMatchingHeader("x-amz-crc32").isPresent &&
        !response.firstMatchingHeader("Content-Encoding").isPresent
  }

  /** The JVM's: its clients share one pool. */
  object Interceptor
    extends Interceptor(new PiecePool(BodyPieces.PieceLength, PiecePool.capacityFor(BodyPieces.PieceLength)))
}
