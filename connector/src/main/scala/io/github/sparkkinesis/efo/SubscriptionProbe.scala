// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.efo

import java.nio.charset.StandardCharsets
import java.util.Locale

import scala.collection.mutable

import com.fasterxml.jackson.databind.ObjectMapper

import io.github.sparkkinesis.client.KinesisRecord
import io.github.sparkkinesis.client.sdk.KinesisClients
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.options.{ConnectionOptions, OptionValues}

/**
 * Checks that this JVM can read a shard with enhanced fan-out: HTTP/2, the trust store, the
 * credentials and the consumer. Registers (or reuses) a consumer, subscribes to one shard from
 * TRIM_HORIZON, reads `--expect` records (optionally ending the subscription after
 * `--resubscribe-after` records, to exercise renewal, and saying so on a line of its own), and
 * prints one JSON line at the end: the records' payloads and sequence numbers, subscriptions
 * made, and the final position.
 *
 * {{{
 * java -Djavax.net.ssl.trustStore=... -cp spark-sql-kinesis-assembly.jar:$SPARK_HOME/jars/'*' \
 *   io.github.sparkkinesis.efo.SubscriptionProbe --stream S --consumer C --region R --expect 10
 * }}}
 * Credentials come from the AWS default chain. Exit code 0 on success, 1 with the error on
 * stderr otherwise, 2 for bad arguments.
 */
object SubscriptionProbe {
  private val usage = "usage: SubscriptionProbe --stream S --consumer NAME --expect N [--region R] " +
    "[--endpoint URL] [--shard ID] [--resubscribe-after K] [--timeout-s T] [--deregister]"

  def main(args: Array[String]): Unit = {
    val (opts, flags) =
      try parseArgs(args)
      catch {
        case e: IllegalArgumentException =>
          System.err.println(s"${e.getMessage}\n$usage")
          sys.exit(2)
      }
    try {
      println(run(opts, flags))
      sys.exit(0)
    } catch {
      case e: Throwable =>
        System.err.println(s"ERROR: ${e.getMessage}")
        Option(e.getCause).foreach(c => System.err.println(s"CAUSE: ${c.getClass.getName}: ${c.getMessage}"))
        sys.exit(1)
    }
  }

  private def parseArgs(args: Array[String]): (Map[String, String], Set[String]) = {
    val valued = Set("stream", "consumer", "expect", "region", "endpoint", "shard", "resubscribe-after", "timeout-s")
    val opts = mutable.Map.empty[String, String]
    val flags = mutable.Set.empty[String]
    var i = 0
    while (i < args.length) {
      val name = args(i).stripPrefix("--")
      if (name == "deregister") flags += name
      else if (valued(name) && i + 1 < args.length) { opts(name) = args(i + 1); i += 1 }
      else throw new IllegalArgumentException(s"unknown or incomplete argument '${args(i)}'")
      i += 1
    }
    Seq("stream", "consumer", "expect").foreach { r =>
      if (!opts.contains(r)) throw new IllegalArgumentException(s"--$r is required")
    }
    (opts.toMap, flags.toSet)
  }

  private def run(opts: Map[String, String], flags: Set[String]): String = {
    val connection = ConnectionOptions.parse(new OptionValues(
        opts.filter { case (k, _) => Set("region", "endpoint")(k) }.map { case (k, v) =>
        k.toLowerCase(Locale.ROOT) -> v
      }))
    val stream = opts("stream")
    val expect = opts("expect").toInt
    val resubscribeAfter = opts.get("resubscribe-after").map(_.toInt).getOrElse(0)
    val deadline = System.nanoTime() + opts.getOrElse("timeout-s", "120").toLong * 1000000000L
    val registry = ConsumerRegistry(connection)
    val arn = registry.resolve(stream, opts("consumer"))
    val shardId = opts.getOrElse("shard", KinesisClients.api(connection).listShards(stream, 100).head.shardId)
    val metrics = new EfoMetrics
    val cursor = new SubscriptionCursor(KinesisClients.transport(connection), ShardKey(stream, shardId), arn,
      ShardPosition.TrimHorizon, where = connection.where, metrics = metrics)
    val got = mutable.ArrayBuffer.empty[KinesisRecord]
    try {
      var forced = false
      while (got.size < expect && !cursor.isEnded && System.nanoTime() < deadline) {
        got ++= cursor.fetch(1000).records
        if (!forced && resubscribeAfter > 0 && got.size >= resubscribeAfter) {
          cursor.endSubscription()
          forced = true
          // Lets a test put more records now, which only the next subscription can deliver.
          println(s"""{"event":"subscription ended","records":${got.size}}""")
          System.out.flush()
        }
      }
    } finally cursor.close()
    if (flags("deregister")) registry.deregisterQuietly(stream, opts("consumer"))
    val mapper = new ObjectMapper()
    val out = mapper.createObjectNode()
    val data = out.putArray("data")
    got.foreach(r => data.add(new String(r.data, StandardCharsets.UTF_8)))
    val seqs = out.putArray("sequenceNumbers")
    got.foreach(r => seqs.add(r.sequenceNumber))
    out.put("shardId", shardId)
    out.put("consumerArn", arn)
    out.put("subscriptions", cursor.subscriptions)
    out.put("resubscriptions", metrics.resubscriptions)
    out.put("position", cursor.position.toString)
    out.put("millisBehindLatest", cursor.millisBehindLatest.map(Long.box).orNull)
    mapper.writeValueAsString(out)
  }
}
