// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.wire

import java.io.ByteArrayInputStream
import java.nio.ByteBuffer
import java.util.concurrent.CompletableFuture

import org.reactivestreams.{Subscriber, Subscription}
import software.amazon.awssdk.auth.credentials.{AwsBasicCredentials, StaticCredentialsProvider}
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration
import software.amazon.awssdk.http.{
  AbortableInputStream, ExecutableHttpRequest, HttpExecuteRequest, HttpExecuteResponse, SdkHttpClient, SdkHttpResponse
}
import software.amazon.awssdk.http.async.{AsyncExecuteRequest, SdkAsyncHttpClient}
import software.amazon.awssdk.regions.Region
import software.amazon.awssdk.services.kinesis.{KinesisAsyncClient, KinesisClient}
import software.amazon.awssdk.utils.async.SimplePublisher

/**
 * SDK HTTP clients that answer every request with bytes a test sets, with no network: the
 * Kinesis clients built on them read exactly those bytes, with the connector's decoding
 * interceptors registered as [[AwsClientFactory]] registers them (they act only on requests
 * that carry their attribute, so the same client is also the plain SDK).
 */
object CannedHttp {
  private val credentials = StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test"))

  private def config(interceptor: software.amazon.awssdk.core.interceptor.ExecutionInterceptor) =
    ClientOverrideConfiguration.builder().addExecutionInterceptor(interceptor).retryStrategy(
      AwsRetryStrategy.doNotRetry())
      .build()

  private def response(contentType: String, length: Option[Int]): SdkHttpResponse = {
    val b = SdkHttpResponse.builder().statusCode(200).putHeader("Content-Type", contentType)
    length.foreach(n => b.putHeader("Content-Length", n.toString))
    b.build()
  }

  /**
   * Answers every call with `body` as CBOR (with its length declared, or not), read by the
   * connector's GetRecords interceptor as clients register it, or by `interceptor`.
   */
  final class Sync(interceptor: GetRecordsDecoding.Interceptor = GetRecordsDecoding.Interceptor) extends SdkHttpClient {
    @volatile var body: Array[Byte] = Array.emptyByteArray
    @volatile var declareLength = true

    val kinesis: KinesisClient = KinesisClient.builder().httpClient(this).region(Region.US_EAST_1)
      .credentialsProvider(credentials).overrideConfiguration(config(interceptor)).build()

    override def prepareRequest(request: HttpExecuteRequest): ExecutableHttpRequest = new ExecutableHttpRequest {
      private val bytes = body
      override def call(): HttpExecuteResponse = HttpExecuteResponse.builder()
        .response(response("application/x-amz-cbor-1.1", if (declareLength) Some(bytes.length) else None))
        .responseBody(AbortableInputStream.create(new ByteArrayInputStream(bytes))).build()
      override def abort(): Unit = ()
    }

    override def close(): Unit = ()
  }

  /** Answers every call with an event stream made of `buffers`, each delivered as one buffer. */
  final class Async extends SdkAsyncHttpClient {
    @volatile var buffers: Seq[Array[Byte]] = Nil

    val kinesis: KinesisAsyncClient = KinesisAsyncClient.builder().httpClient(this).region(Region.US_EAST_1)
      .credentialsProvider(credentials).overrideConfiguration(config(SubscribeEventDecoding.Interceptor)).build()

    override def execute(request: AsyncExecuteRequest): CompletableFuture[Void] = {
      request.requestContentPublisher().subscribe(Drain)
      val handler = request.responseHandler()
      handler.onHeaders(response("application/vnd.amazon.eventstream", None))
      val stream = new SimplePublisher[ByteBuffer]()
      handler.onStream(stream)
      buffers.foreach(b => stream.send(ByteBuffer.wrap(b)))
      stream.complete()
    }

    override def close(): Unit = ()
  }

  private object Drain extends Subscriber[ByteBuffer] {
    override def onSubscribe(s: Subscription): Unit = s.request(Long.MaxValue)
    override def onNext(t: ByteBuffer): Unit = ()
    override def onError(t: Throwable): Unit = ()
    override def onComplete(): Unit = ()
  }
}
