// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench

import java.util.UUID

import io.netty.buffer.{ByteBuf, ByteBufUtil, Unpooled}
import io.netty.channel._
import io.netty.handler.codec.ByteToMessageDecoder
import io.netty.handler.codec.http._
import io.netty.handler.codec.http2._

/**
 * One port speaking HTTP/1.1 (the SDK's URL-connection client: polling and the control plane)
 * and HTTP/2 with prior knowledge (h2c: the SDK's Netty client, which SubscribeToShard needs).
 * The first bytes of a connection decide which.
 */
final class ProtocolDetector(operations: Operations) extends ByteToMessageDecoder {
  private val preface = Http2CodecUtil.connectionPrefaceBuf()

  override def decode(ctx: ChannelHandlerContext, in: ByteBuf, out: java.util.List[AnyRef]): Unit = {
    val n = math.min(in.readableBytes(), preface.readableBytes())
    if (n == 0) return
    val isHttp2 = ByteBufUtil.equals(in, in.readerIndex(), preface, 0, n)
    if (isHttp2 && n < preface.readableBytes()) return // not enough bytes yet to tell
    val pipeline = ctx.pipeline()
    if (isHttp2) {
      val settings = Http2Settings.defaultSettings().maxConcurrentStreams(100000L).initialWindowSize(1024 * 1024)
      pipeline.addAfter(ctx.name(), "h2", Http2FrameCodecBuilder.forServer().initialSettings(settings).build())
      pipeline.addAfter("h2", "streams", new Http2MultiplexHandler(new ChannelInitializer[Channel] {
        override def initChannel(ch: Channel): Unit = ch.pipeline().addLast(new Http2StreamHandler(operations))
      }))
    } else {
      pipeline.addAfter(ctx.name(), "http", new HttpServerCodec())
      pipeline.addAfter("http", "aggregate", new HttpObjectAggregator(16 * 1024 * 1024))
      pipeline.addAfter("aggregate", "kinesis", new Http1Handler(operations))
    }
    pipeline.remove(this)
  }
}

/**
 * HTTP/1.1, keep-alive; SubscribeToShard is refused here, as Kinesis refuses it without HTTP/2.
 * `GET /calls` answers the calls so far by operation, as JSON, for the bench to read.
 */
final class Http1Handler(operations: Operations) extends SimpleChannelInboundHandler[FullHttpRequest] {
  override def channelRead0(ctx: ChannelHandlerContext, request: FullHttpRequest): Unit =
    if (request.method() == HttpMethod.GET && request.uri() == "/calls") callCounts(ctx) else answer(ctx, request)

  private def answer(ctx: ChannelHandlerContext, request: FullHttpRequest): Unit = {
    val contentType = request.headers().get(HttpHeaderNames.CONTENT_TYPE)
    val target = request.headers().get("x-amz-target")
    val body = ByteBufUtil.getBytes(request.content())
    val whole = operations.handle(target, contentType, body, ctx.alloc()) match {
      case w: Whole => w
      case EventStream(_) =>
        operations.error(KinesisFault.invalid("SubscribeToShard needs HTTP/2"), contentType, ctx.alloc())
    }
    val response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(whole.status), whole.body)
    val headers = response.headers()
    headers.set(HttpHeaderNames.CONTENT_TYPE, whole.contentType)
    headers.set(HttpHeaderNames.CONTENT_LENGTH, whole.body.readableBytes())
    headers.set("x-amzn-RequestId", UUID.randomUUID().toString)
    whole.errorType.foreach(headers.set("x-amzn-ErrorType", _))
    if (!HttpUtil.isKeepAlive(request)) {
      ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE)
    } else {
      ctx.writeAndFlush(response)
    }
  }

  private def callCounts(ctx: ChannelHandlerContext): Unit = {
    val json = operations.callCounts.toSeq.sorted.map { case (operation, n) => s"\"$operation\":$n" }.mkString("{", ",", "}")
    val response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
      Unpooled.copiedBuffer(json, java.nio.charset.StandardCharsets.UTF_8))
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json")
    response.headers().set(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes())
    ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE)
  }

  override def exceptionCaught(ctx: ChannelHandlerContext, cause: Throwable): Unit = ctx.close()
}

/** One HTTP/2 stream: gathers the request, answers it whole, or hands it to a [[Subscription]]. */
final class Http2StreamHandler(operations: Operations) extends ChannelInboundHandlerAdapter {
  private var headers: Http2Headers = _
  private val body = Unpooled.compositeBuffer()
  private var subscription: Subscription = _

  override def channelRead(ctx: ChannelHandlerContext, msg: Any): Unit = msg match {
    case h: Http2HeadersFrame =>
      headers = h.headers()
      if (h.isEndStream) answer(ctx)
    case d: Http2DataFrame =>
      body.addComponent(true, d.content().retain())
      d.release()
      if (d.isEndStream) answer(ctx)
    case other => io.netty.util.ReferenceCountUtil.release(other)
  }

  private def answer(ctx: ChannelHandlerContext): Unit = {
    val contentType = Option(headers.get("content-type")).map(_.toString).orNull
    val target = Option(headers.get("x-amz-target")).map(_.toString).orNull
    val bytes = ByteBufUtil.getBytes(body)
    body.release()
    val response = new DefaultHttp2Headers().status("200")
    response.set("x-amzn-requestid", UUID.randomUUID().toString)
    operations.handle(target, contentType, bytes, ctx.alloc()) match {
      case w: Whole =>
        response.status(w.status.toString).set("content-type", w.contentType)
        response.setInt("content-length", w.body.readableBytes())
        w.errorType.foreach(response.set("x-amzn-errortype", _))
        ctx.write(new DefaultHttp2HeadersFrame(response))
        ctx.writeAndFlush(new DefaultHttp2DataFrame(w.body, true))
      case EventStream(s) =>
        response.set("content-type", "application/vnd.amazon.eventstream")
        ctx.write(new DefaultHttp2HeadersFrame(response))
        subscription = s
        s.start(ctx.channel())
    }
  }

  override def channelWritabilityChanged(ctx: ChannelHandlerContext): Unit = {
    if (subscription != null && ctx.channel().isWritable) subscription.pump()
    super.channelWritabilityChanged(ctx)
  }

  override def channelInactive(ctx: ChannelHandlerContext): Unit = {
    if (body.refCnt() > 0) body.release()
    super.channelInactive(ctx)
  }

  override def exceptionCaught(ctx: ChannelHandlerContext, cause: Throwable): Unit = ctx.close()
}
