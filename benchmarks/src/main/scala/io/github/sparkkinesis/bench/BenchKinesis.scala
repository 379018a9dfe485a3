// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench

import java.nio.charset.StandardCharsets.US_ASCII
import java.nio.file.{Files, Paths}
import java.util.concurrent.{Executors, TimeUnit}

import io.netty.bootstrap.ServerBootstrap
import io.netty.channel.{Channel, ChannelInitializer, ChannelOption}
import io.netty.channel.nio.NioEventLoopGroup
import io.netty.channel.socket.nio.NioServerSocketChannel

/**
 * A Kinesis endpoint for benchmarks that serves from memory, so the connector rather than the
 * endpoint is what gets measured (kinesis-mock serves a few thousand records a second).
 *
 *   --stream name:shards:records:size  pre-filled synthetic stream (repeatable)
 *   --produce name:perSecond:size      put records at a rate, the put time (epoch seconds) first in each payload
 *   --limits                           the real per-shard limits (see [[Limits]])
 *   --threads n                        event-loop threads (1: everything on one core)
 *   --port n / --port-file path        where to listen (0: any free port) / where to write the port
 */
final class BenchKinesis(val streams: BenchStreams, limits: Option[Limits], threads: Int) {
  private val boss = new NioEventLoopGroup(1)
  private val workers = new NioEventLoopGroup(threads)
  private val producer = Executors.newSingleThreadScheduledExecutor()
  private var channel: Channel = _

  def start(port: Int): Int = {
    val operations = new Operations(streams, limits)
    channel = new ServerBootstrap().group(boss, workers).channel(classOf[NioServerSocketChannel])
      .childOption[java.lang.Boolean](ChannelOption.TCP_NODELAY, true)
      .childHandler(new ChannelInitializer[Channel] {
        override def initChannel(ch: Channel): Unit = ch.pipeline().addLast("detect", new ProtocolDetector(operations))
      })
      .bind("127.0.0.1", port).sync().channel()
    channel.localAddress().asInstanceOf[java.net.InetSocketAddress].getPort
  }

  /** Puts `perSecond` records of `size` bytes into `stream`, spread over its shards, in 10 ms steps. */
  def produce(stream: BenchStream, perSecond: Int, size: Int): Unit = {
    var produced = 0L
    val begin = System.nanoTime()
    producer.scheduleAtFixedRate(() => {
      val due = (System.nanoTime() - begin) / 1000000000.0 * perSecond
      while (produced < due) {
        val now = System.currentTimeMillis()
        val stamp = f"${now / 1000}.${now % 1000}%03d".getBytes(US_ASCII)
        val data = Array.fill[Byte](math.max(size, stamp.length))(' ')
        System.arraycopy(stamp, 0, data, 0, stamp.length)
        val shard = stream.shards((produced % stream.shards.size).toInt)
        shard.append(StoredRecord(s"p-$produced", data, now))
        produced += 1
      }
    }, 0, 10, TimeUnit.MILLISECONDS)
  }

  def stop(): Unit = {
    producer.shutdownNow()
    if (channel != null) channel.close().sync()
    boss.shutdownGracefully(0, 1, TimeUnit.SECONDS)
    workers.shutdownGracefully(0, 1, TimeUnit.SECONDS)
  }
}

object BenchKinesis {
  def main(args: Array[String]): Unit = {
    val options = Args(args)
    val streams = new BenchStreams()
    options.all("stream").foreach { spec =>
      spec.split(':') match {
        case Array(name, shards, records, size) => streams.create(name, shards.toInt, records.toLong, size.toInt)
        case _ => sys.error(s"--stream $spec: expected name:shards:records:size")
      }
    }
    val server = new BenchKinesis(streams, if (options.flag("limits")) Some(new Limits()) else None, options.int("threads", 1))
    val port = server.start(options.int("port", 0))
    options.all("produce").foreach { spec =>
      spec.split(':') match {
        case Array(name, rate, size) =>
          val stream = streams.get(name).getOrElse(sys.error(s"--produce $spec: no --stream named $name"))
          server.produce(stream, rate.toInt, size.toInt)
        case _ => sys.error(s"--produce $spec: expected name:perSecond:size")
      }
    }
    options.get("port-file").foreach(f => Files.write(Paths.get(f), port.toString.getBytes(US_ASCII)))
    println(s"bench kinesis listening on http://127.0.0.1:$port")
    sys.addShutdownHook(server.stop())
    Thread.currentThread().join()
  }
}

/** `--name value` and `--flag` arguments; a name may repeat. */
final case class Args(pairs: Seq[(String, String)]) {
  def all(name: String): Seq[String] = pairs.collect { case (`name`, v) => v }
  def get(name: String): Option[String] = all(name).lastOption
  def int(name: String, default: Int): Int = get(name).map(_.toInt).getOrElse(default)
  def flag(name: String): Boolean = pairs.exists(_._1 == name)
}

object Args {
  def apply(args: Array[String]): Args = {
    val pairs = Seq.newBuilder[(String, String)]
    var i = 0
    while (i < args.length) {
      require(args(i).startsWith("--"), s"unexpected argument ${args(i)}")
      val name = args(i).stripPrefix("--")
      if (i + 1 < args.length && !args(i + 1).startsWith("--")) { pairs += name -> args(i + 1); i += 2 }
      else { pairs += name -> "true"; i += 1 }
    }
    Args(pairs.result())
  }
}
