// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.wire

import java.net.InetSocketAddress

import io.netty.bootstrap.ServerBootstrap
import io.netty.buffer.Unpooled
import io.netty.channel.{Channel, ChannelHandlerContext, ChannelInboundHandlerAdapter, ChannelInitializer}
import io.netty.channel.nio.NioEventLoopGroup
import io.netty.channel.socket.nio.NioServerSocketChannel
import io.netty.handler.codec.http2.{
  DefaultHttp2DataFrame, DefaultHttp2Headers, DefaultHttp2HeadersFrame, Http2DataFrame, Http2FrameCodecBuilder,
  Http2HeadersFrame, Http2MultiplexHandler
}
import io.netty.util.ReferenceCountUtil

/**
 * An HTTP/2 endpoint (h2c with prior knowledge, as the connector speaks to plain http
 * endpoints) that answers every request with `body` as an AWS event stream, in DATA frames of
 * at most `chunk` bytes: a message may then arrive split across many buffers.
 */
final class EventStreamServer extends AutoCloseable {
  @volatile var body: Array[Byte] = Array.emptyByteArray
  @volatile var chunk: Int = 16384

  private val group = new NioEventLoopGroup(1)
  private val channel: Channel = new ServerBootstrap()
    .group(group)
    .channel(classOf[NioServerSocketChannel])
    .childHandler(new ChannelInitializer[Channel] {
      override def initChannel(ch: Channel): Unit = ch.pipeline().addLast(
        Http2FrameCodecBuilder.forServer().build(),
        new Http2MultiplexHandler(new ChannelInitializer[Channel] {
          override def initChannel(stream: Channel): Unit = stream.pipeline().addLast(new Answer)
        }))
    })
    .bind("127.0.0.1", 0).sync().channel()

  def endpoint: String = s"http://127.0.0.1:${channel.localAddress().asInstanceOf[InetSocketAddress].getPort}"

  override def close(): Unit = {
    channel.close().sync()
    group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).sync()
  }

  private final class Answer extends ChannelInboundHandlerAdapter {
    override def channelRead(ctx: ChannelHandlerContext, msg: Any): Unit = {
      val ended = msg match {
        case h: Http2HeadersFrame => h.isEndStream
        case d: Http2DataFrame => d.isEndStream
        case _ => false
      }
      ReferenceCountUtil.release(msg)
      if (ended) {
        val bytes = body
        val size = chunk
        val headers = new DefaultHttp2Headers().status("200").set("content-type", "application/vnd.amazon.eventstream")
        ctx.write(new DefaultHttp2HeadersFrame(headers, bytes.isEmpty))
        var at = 0
        while (at < bytes.length) {
          val n = math.min(size, bytes.length - at)
          ctx.write(new DefaultHttp2DataFrame(Unpooled.wrappedBuffer(bytes, at, n), at + n == bytes.length))
          at += n
        }
        ctx.flush()
      }
    }

    override def exceptionCaught(ctx: ChannelHandlerContext, cause: Throwable): Unit = ctx.close()
  }
}
