// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import java.lang.management.ManagementFactory
import java.nio.file.Files

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.read.streaming.ReadLimit

import io.github.sparkkinesis.FakeKinesisApi
import io.github.sparkkinesis.client.sdk.KinesisClients
import io.github.sparkkinesis.offsets.KinesisSourceOffset
import io.github.sparkkinesis.options.KinesisSourceOptions

/**
 * Not a test: a measurement of the driver's work per trigger over a fake stream of many shards
 * (`make bench` row `scale-*` measures the same against a benchmark Kinesis, with more noise).
 * Drives the polling stream as Spark does (offsets through their JSON, as the offset log
 * keeps them) and prints, per step, the driver thread's milliseconds and allocated megabytes.
 *
 * {{{
 * build/sbt "connector/Test/runMain io.github.sparkkinesis.source.DriverScaleProfile 10000 8 [busy]"
 * }}}
 * With `busy`, every trigger after the first finds a new record in every shard (it waits until
 * the prefetcher has fetched them).
 */
object DriverScaleProfile {
  private val threads = ManagementFactory.getThreadMXBean.asInstanceOf[com.sun.management.ThreadMXBean]

  /** Runs `body`, printing its wall-clock ms, the calling thread's CPU ms and its allocated MB. */
  private def step[T](label: String)(body: => T): T = {
    val id = Thread.currentThread().getId
    val bytes = threads.getThreadAllocatedBytes(id)
    val cpu = threads.getCurrentThreadCpuTime
    val began = System.nanoTime()
    val result = body
    println(f"$label%-34s wall ${(System.nanoTime() - began) / 1e6}%9.1f ms  cpu " +
      f"${(threads.getCurrentThreadCpuTime - cpu) / 1e6}%9.1f ms  alloc " +
      f"${(threads.getThreadAllocatedBytes(id) - bytes) / 1048576.0}%8.1f MB")
    result
  }

  /**
   * Waits (up to a minute) until the prefetcher has fetched `records`, so that a busy trigger
   * finds the new record of every shard buffered, as a trigger of a busy stream does.
   */
  private def awaitFetched(source: KinesisMicroBatchStream, records: Long): Unit = {
    def fetched = source.metrics(java.util.Optional.empty()).get("fetchedRecords").toLong
    val deadline = System.nanoTime() + 60000000000L
    while (fetched < records && System.nanoTime() < deadline) Thread.sleep(50)
  }

  def main(args: Array[String]): Unit = {
    val shards = args.headOption.map(_.toInt).getOrElse(10000)
    val triggers = args.lift(1).map(_.toInt).getOrElse(8)
    val busy = args.lift(2).contains("busy")
    val spark = SparkSession.builder().master("local[2]").appName("DriverScaleProfile")
      .config("spark.ui.enabled", "false").getOrCreate()
    val api = new FakeKinesisApi().createStream("s", shards)
    (0 until shards).foreach(i => api.put("s", f"shardId-$i%012d", s"a$i", s"b$i"))
    val options = KinesisSourceOptions.parse(Map("streamName" -> "s", "region" -> "us-east-1",
        "initialPosition" -> "trim_horizon", "maxFetchDuration" -> "200ms", "minFetchPeriod" -> "210ms"))
    KinesisClients.install(options.connection, api)
    val metadataPath = Files.createTempDirectory("driver-scale-").resolve("sources/0").toString
    val source = new KinesisMicroBatchStream(options, metadataPath, api, spark.sparkContext)
    def logged(offset: org.apache.spark.sql.connector.read.streaming.Offset): KinesisSourceOffset = {
      val json = step("  offset JSON written")(offset.json())
      step("  offset JSON read")(source.deserializeOffset(json).asInstanceOf[KinesisSourceOffset])
    }
    try {
      println(s"$shards shards, $triggers triggers${if (busy) ", a new record in every shard before each" else ""}")
      var committed = logged(step("initialOffset")(source.initialOffset()))
      (1 to triggers).foreach { trigger =>
        if (busy && trigger > 1) {
          (0 until shards).foreach(i => api.put("s", f"shardId-$i%012d", s"t$trigger-$i"))
          awaitFetched(source, shards * (trigger + 1L))
        }
        // As Spark's micro-batch loop does: the start read back from its JSON, the latest
        // offset, and (for the progress report) the JSON of start, end and latest.
        val start = step(s"trigger $trigger: start from JSON")(
          source.deserializeOffset(committed.json()).asInstanceOf[KinesisSourceOffset])
        val end = step("  latestOffset")(source.latestOffset(start, ReadLimit.allAvailable()))
          .asInstanceOf[KinesisSourceOffset]
        println(s"  idle wait ${source.metrics(java.util.Optional.empty()).get("idleWaitMs")} ms")
        if (end != start) {
          val logEnd = logged(end)
          val parts = step("  planInputPartitions")(source.planInputPartitions(start, logEnd))
          println(s"  ${parts.length} partitions")
          source.commit(logEnd)
          committed = logEnd
        }
        step("  progress JSON")(Seq(start.json(), end.json(), end.json()))
        step("  progress metrics")(source.metrics(java.util.Optional.of(end)))
      }
    } finally {
      source.stop()
      KinesisClients.uninstall(options.connection)
      spark.stop()
    }
  }
}
