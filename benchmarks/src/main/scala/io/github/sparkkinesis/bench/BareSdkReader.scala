// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench

import java.lang.management.ManagementFactory
import java.net.URI
import java.time.Duration
import java.util.concurrent.{CompletableFuture, CountDownLatch, TimeUnit}
import java.util.concurrent.atomic.{AtomicBoolean, AtomicLong}

import scala.jdk.CollectionConverters._

import software.amazon.awssdk.auth.credentials.{AwsBasicCredentials, StaticCredentialsProvider}
import software.amazon.awssdk.http.{Protocol, ProtocolNegotiation}
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient
import software.amazon.awssdk.regions.Region
import software.amazon.awssdk.services.kinesis.{KinesisAsyncClient, KinesisClient}
import software.amazon.awssdk.services.kinesis.model._

/**
 * The ceiling the connector is compared with: the plain AWS SDK v2 reading every shard of a
 * stream as fast as it can, one thread per shard with a GetRecords loop (polling), or one
 * subscription per shard (enhanced fan-out), with the clients the connector builds. Prints one
 * JSON line: records, bytes, wall seconds and this JVM's CPU seconds.
 *
 *   --endpoint http://127.0.0.1:port --stream name --records total [--mode polling|efo] [--seconds limit]
 */
object BareSdkReader {
  private val credentials = StaticCredentialsProvider.create(AwsBasicCredentials.create("bench", "bench"))

  def main(args: Array[String]): Unit = {
    val options = Args(args)
    val endpoint = URI.create(options.get("endpoint").getOrElse(sys.error("--endpoint is required")))
    val stream = options.get("stream").getOrElse(sys.error("--stream is required"))
    val total = options.get("records").map(_.toLong).getOrElse(sys.error("--records is required"))
    val deadline = System.nanoTime() + options.int("seconds", 120) * 1000000000L
    val records, bytes = new AtomicLong()
    val sync = KinesisClient.builder().endpointOverride(endpoint).region(Region.US_EAST_1).credentialsProvider(credentials)
      .httpClientBuilder(UrlConnectionHttpClient.builder().socketTimeout(Duration.ofSeconds(60))).build()
    val shards = sync.listShards(ListShardsRequest.builder().streamName(stream).build()).shards().asScala.map(_.shardId()).toSeq
    val cpuBefore = cpuNanos()
    val began = System.nanoTime()
    options.get("mode").getOrElse("polling") match {
      case "polling" => poll(sync, stream, shards, total, deadline, records, bytes)
      case "efo" => subscribe(sync, endpoint, stream, shards, total, deadline, records, bytes)
      case other => sys.error(s"--mode $other: expected polling or efo")
    }
    val seconds = (System.nanoTime() - began) / 1e9
    val cpu = (cpuNanos() - cpuBefore) / 1e9
    println(f"""{"mode": "${options.get("mode").getOrElse("polling")}", "records": ${records.get}, "bytes": ${bytes.get}, "seconds": $seconds%.3f, "cpu_seconds": $cpu%.3f}""")
    sys.exit(0)
  }

  private def cpuNanos(): Long =
    ManagementFactory.getOperatingSystemMXBean.asInstanceOf[com.sun.management.OperatingSystemMXBean].getProcessCpuTime

  private def done(total: Long, records: AtomicLong, deadline: Long): Boolean =
    records.get >= total || System.nanoTime() > deadline

  private def poll(client: KinesisClient, stream: String, shards: Seq[String], total: Long, deadline: Long,
      records: AtomicLong, bytes: AtomicLong): Unit = {
    val threads = shards.map { shard =>
      new Thread(() => {
        var iterator = client.getShardIterator(GetShardIteratorRequest.builder().streamName(stream).shardId(shard)
          .shardIteratorType(ShardIteratorType.TRIM_HORIZON).build()).shardIterator()
        while (iterator != null && !done(total, records, deadline)) {
          val response = client.getRecords(GetRecordsRequest.builder().shardIterator(iterator).limit(10000).build())
          val got = response.records()
          var n = 0L
          got.forEach(r => n += r.data().asByteArrayUnsafe().length)
          bytes.addAndGet(n)
          records.addAndGet(got.size)
          iterator = response.nextShardIterator()
          if (got.isEmpty) Thread.sleep(10)
        }
      })
    }
    threads.foreach(_.start())
    threads.foreach(_.join())
  }

  private def subscribe(sync: KinesisClient, endpoint: URI, stream: String, shards: Seq[String], total: Long, deadline: Long,
      records: AtomicLong, bytes: AtomicLong): Unit = {
    val async = KinesisAsyncClient.builder().endpointOverride(endpoint).region(Region.US_EAST_1).credentialsProvider(credentials)
      .httpClientBuilder(NettyNioAsyncHttpClient.builder().protocol(Protocol.HTTP2)
        .protocolNegotiation(ProtocolNegotiation.ASSUME_PROTOCOL).maxConcurrency(10000)).build()
    val streamArn = sync.describeStreamSummary(DescribeStreamSummaryRequest.builder().streamName(stream).build())
      .streamDescriptionSummary().streamARN()
    val consumer = sync.registerStreamConsumer(RegisterStreamConsumerRequest.builder().streamARN(streamArn)
      .consumerName(s"bare-${System.nanoTime()}").build()).consumer().consumerARN()
    val finished = new CountDownLatch(1)
    val stop = new AtomicBoolean(false)
    val calls = shards.map { shard =>
      val handler = SubscribeToShardResponseHandler.builder()
        .subscriber((event: SubscribeToShardEventStream) => event match {
          case e: SubscribeToShardEvent =>
            var n = 0L
            e.records().forEach(r => n += r.data().asByteArrayUnsafe().length)
            bytes.addAndGet(n)
            if (records.addAndGet(e.records().size) >= total) finished.countDown()
          case _ =>
        })
        .onError(t => if (!stop.get) t.printStackTrace())
        .build()
      async.subscribeToShard(SubscribeToShardRequest.builder().consumerARN(consumer).shardId(shard)
        .startingPosition(StartingPosition.builder().`type`(ShardIteratorType.TRIM_HORIZON).build()).build(), handler)
    }
    finished.await(math.max(0L, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)
    stop.set(true)
    calls.foreach(_.cancel(true))
    CompletableFuture.allOf(calls: _*).handle((_, _) => null).get(5, TimeUnit.SECONDS)
  }
}
