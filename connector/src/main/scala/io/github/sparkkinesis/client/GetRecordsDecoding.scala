package io.github.sparkkinesis.client

import java.io.{ByteArrayInputStream, InputStream}
import java.util.Optional

import scala.util.Try

import software.amazon.awssdk.core.interceptor.{Context, ExecutionAttribute, ExecutionAttributes, ExecutionInterceptor}
import software.amazon.awssdk.http.SdkHttpResponse

import io.github.sparkkinesis.kpl.HashKeyRange

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
  final class Decoded(hashRange: Option[HashKeyRange]) {
    @volatile private var found: Option[(Seq[KinesisRecord], KplCounts)] = None

    def records: Option[(Seq[KinesisRecord], KplCounts)] = found

    /**
     * The answer in `body(0 until length)` without its records, having read them; or the answer
     * itself if it cannot be read. Either way in an array of its own: `body` is used again.
     */
    private[GetRecordsDecoding] def read(body: Array[Byte], length: Int): Array[Byte] =
      try {
        val out = new UserRecords.Expansion(hashRange, 0)
        val rest = GetRecordsCbor.split(body, length, out)
        found = Some(out.result())
        rest
      } catch {
        case _: GetRecordsCbor.Unreadable =>
          found = None
          java.util.Arrays.copyOf(body, length)
      }
  }

  /** Set on a GetRecords request: where its interceptor leaves the records. */
  val Attribute = new ExecutionAttribute[Decoded]("io.github.sparkkinesis.GetRecordsDecoded")

  private val Cbor = "application/x-amz-cbor-1.1"

  /** GetRecords answers hold at most 10 MiB of records; a larger declared length is read as if undeclared. */
  private val MaxPresized = 64L << 20

  /**
   * Arrays that answers are read into, used again: an answer of megabytes in a fresh array
   * each call was the largest allocation of a polling read, and G1 puts an array of half a
   * region or more outside the young generation, where each one pushed the heap toward a
   * concurrent marking cycle (make bench, row `polling`). The records are copied out of the
   * array, so nothing refers to it after the call. Answers under [[PooledFrom]] bytes get an
   * array of their own, as before; at most [[Kept]] arrays of at most [[LargestKept]] bytes are
   * kept, and more calls at once than that allocate as before.
   */
  private object BodyBuffers {
    private val PooledFrom = 256 << 10
    private val Kept = 2
    private val LargestKept = 12 << 20
    private val free = new java.util.concurrent.ArrayBlockingQueue[Array[Byte]](Kept)

    /** An array of `length` bytes or more; `length` is at most [[MaxPresized]]. */
    def take(length: Int): Array[Byte] =
      if (length < PooledFrom) new Array[Byte](length)
      else {
        val kept = free.poll()
        // Whole MiB, so that an array made for one answer fits the similar answers after it.
        if (kept != null && kept.length >= length) kept else new Array[Byte]((length + (1 << 20) - 1) >> 20 << 20)
      }

    def give(buffer: Array[Byte]): Unit =
      if (buffer.length >= PooledFrom && buffer.length <= LargestKept) free.offer(buffer)
  }

  /** Registered on every synchronous Kinesis client; acts on requests that carry [[Attribute]]. */
  object Interceptor extends ExecutionInterceptor {
    override def modifyHttpResponseContent(
        context: Context.ModifyHttpResponse, attributes: ExecutionAttributes): Optional[InputStream] = {
      val decoded = attributes.getAttribute(Attribute)
      val body = context.responseBody()
      if (decoded == null || !body.isPresent || !readable(context.httpResponse())) body
      else {
        val declared = declaredLength(context.httpResponse())
        val rest =
          try {
            if (declared == 0) {
              val bytes = body.get().readAllBytes()
              decoded.read(bytes, bytes.length)
            } else {
              // Read to the declared length: readAllBytes gathers a body in pieces and copies them
              // into a final array, which for answers of megabytes was a quarter of what a polling
              // read allocated. The HTTP client ends a body at its declared length (and fails one
              // that ends early).
              val buffer = BodyBuffers.take(declared)
              try decoded.read(buffer, body.get().readNBytes(buffer, 0, declared))
              finally BodyBuffers.give(buffer)
            }
          } finally body.get().close()
        Optional.of(new ByteArrayInputStream(rest))
      }
    }

    /** The body's declared length, or 0 if it declares none (or more than an answer can hold). */
    private def declaredLength(response: SdkHttpResponse): Int = {
      val header = response.firstMatchingHeader("Content-Length")
      if (!header.isPresent) 0
      else Try(header.get.trim.toLong).toOption.filter(n => n > 0 && n <= MaxPresized).fold(0)(_.toInt)
    }

    /** A success in CBOR, with no checksum the SDK would check against the changed body, nor an encoding. */
    private def readable(response: SdkHttpResponse): Boolean =
      response.isSuccessful &&
        response.firstMatchingHeader("Content-Type").filter(_.trim.equalsIgnoreCase(Cbor)).isPresent &&
        !response.firstMatchingHeader("x-amz-crc32").isPresent &&
        !response.firstMatchingHeader("Content-Encoding").isPresent
  }
}
