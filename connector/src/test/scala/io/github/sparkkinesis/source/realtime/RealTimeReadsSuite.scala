// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source.realtime

import org.apache.spark.SparkContext
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.FakeKinesisApi
import io.github.sparkkinesis.LocalSpark
import io.github.sparkkinesis.errors.{KinesisConnectorException, KinesisOptionException}
import io.github.sparkkinesis.offsets.{KinesisOffsetJson, KinesisSourceOffset, ShardKey, ShardPosition}
import io.github.sparkkinesis.options.KinesisSourceOptions
import io.github.sparkkinesis.polling.TrimHorizonCheck

/**
 * The driver side of real-time mode over a fake Kinesis, driven as Spark drives it: per batch
 * latestOffset, planInputPartitions(start), the tasks' offsets merged, the merged offset
 * through its JSON (the offset log) as the next batch's start.
 */
class RealTimeReadsSuite extends AnyFunSuite with Matchers with LocalSpark {
  import ShardPosition._

  private def shardId(i: Int) = f"shardId-$i%012d"
  private def key(i: Int) = ShardKey("clicks", shardId(i))

  private def options(extra: (String, String)*): KinesisSourceOptions = KinesisSourceOptions.parse(Map(
    "streamName" -> "clicks", "region" -> "us-east-1", "initialPosition" -> "trim_horizon") ++ extra)

  private def reads(api: FakeKinesisApi, slots: Int = 8, opts: KinesisSourceOptions = options()): RealTimeReads =
    new RealTimeReads(opts, api, spark.sparkContext, "test", (_: SparkContext) => slots)

  private def start(shards: (ShardKey, ShardPosition)*) = KinesisSourceOffset(shards.toMap)

  private def ended(partition: RealTimeShardPartition, position: ShardPosition, records: Long = 0,
      losses: Long = 0) =
    ShardPartitionOffset(partition.shard, position, "executor_host_1",
      ShardReadStats(records, records * 10, 0, 0, 0, 0, 0, losses))

  private def viaLog(offset: KinesisSourceOffset) = KinesisOffsetJson.read(offset.json())

  test("plans one task per open shard from the batch's start, and merges where each stopped") {
    val api = new FakeKinesisApi().createStream("clicks", 2)
    val seqs = api.putMany("clicks", shardId(0), "a", 3)
    val r = reads(api)
    val first = start(key(0) -> TrimHorizon, key(1) -> TrimHorizon)
    r.latestOffset(first)
    val tasks = r.plan(first)
    tasks.map(t => t.shard -> t.start) shouldBe Seq(key(0) -> TrimHorizon, key(1) -> TrimHorizon)
    tasks.map(_.preferredLocations().toSeq) shouldBe Seq(Nil, Nil)
    val end =
      viaLog(r.merge(Seq(ended(tasks(0), AfterSequence(seqs.last), 3), ended(tasks(1), TrimHorizon, losses = 2))))
    end.shards shouldBe Map(key(0) -> AfterSequence(seqs.last), key(1) -> TrimHorizon)
    r.metrics("fetchedRecords") shouldBe "3"
    r.metrics("dataLossEvents") shouldBe "2"

    // The next batch starts there, on the executor that read each shard.
    r.latestOffset(end)
    val next = r.plan(end)
    next.map(t => t.shard -> t.start) shouldBe Seq(key(0) -> AfterSequence(seqs.last), key(1) -> TrimHorizon)
    next.head.preferredLocations().toSeq shouldBe Seq("executor_host_1")
  }

  test("a batch that returned nothing of a shard holding records ends at its first record, which a restart checks") {
    val api = new FakeKinesisApi().createStream("clicks", 2)
    val seqs = api.putMany("clicks", shardId(0), "a", 5)
    val r = reads(api)
    val first = start(key(0) -> TrimHorizon, key(1) -> TrimHorizon)
    r.latestOffset(first)
    val tasks = r.plan(first)
    // Neither task returned a record (an EFO subscription not delivering yet, a batch cut short).
    val end = viaLog(r.merge(tasks.map(t => ended(t, TrimHorizon))))
    end.shards shouldBe Map(key(0) -> AtSequence(seqs.head), key(1) -> TrimHorizon)

    // Retention deletes records the query never read while it is stopped: the restart's reader fails.
    api.trim("clicks", shardId(0), 2)
    val e = intercept[KinesisConnectorException](
      new TrimHorizonCheck(api, key(0), failOnDataLoss = true).check(end.shards(key(0)), () => ()))
    e.getCondition shouldBe "KINESIS_DATA_LOSS"
    e.getMessage should include(seqs(2))
  }

  test("a shard closed during a batch ends its task; its children are read from the next batch on") {
    val api = new FakeKinesisApi().createStream("clicks", 1)
    val seqs = api.putMany("clicks", shardId(0), "a", 2)
    val r = reads(api)
    val first = start(key(0) -> TrimHorizon)
    r.latestOffset(first)
    val tasks = r.plan(first)
    val (left, right) = api.split("clicks", shardId(0))
    val end = viaLog(r.merge(Seq(ended(tasks.head, ShardEnd(Some(seqs.last))))))

    r.latestOffset(end)
    val next = r.plan(end)
    next.map(t => t.shard -> t.start).toSet shouldBe Set(
      ShardKey("clicks", left) -> TrimHorizon, ShardKey("clicks", right) -> TrimHorizon)
    val merged = viaLog(r.merge(next.map(t => ended(t, TrimHorizon))))
    merged.shards(key(0)) shouldBe ShardEnd(Some(seqs.last))
    merged.shards.keySet should contain allOf (ShardKey("clicks", left), ShardKey("clicks", right))
  }

  test("children of a shard not yet read to its end get no task") {
    val api = new FakeKinesisApi().createStream("clicks", 1)
    api.putMany("clicks", shardId(0), "a", 2)
    api.split("clicks", shardId(0))
    val r = reads(api)
    val first = start(key(0) -> TrimHorizon)
    r.latestOffset(first).shards.size shouldBe 3
    r.plan(first).map(_.shard) shouldBe Seq(key(0))
  }

  test("fewer task slots than open shards fails the batch, saying how many are needed and available") {
    val api = new FakeKinesisApi().createStream("clicks", 3)
    val r = reads(api, slots = 2)
    val first = start((0 until 3).map(i => key(i) -> TrimHorizon): _*)
    r.latestOffset(first)
    val e = intercept[KinesisConnectorException](r.plan(first))
    e.getCondition shouldBe "KINESIS_REAL_TIME_NOT_ENOUGH_SLOTS"
    e.getMessage should include("needs 3 task slots at once, and the cluster has 2 (master local[2]")
  }

  test("options that cannot apply in real-time mode are refused, named as the user typed them") {
    val api = new FakeKinesisApi().createStream("clicks", 1)
    Seq("fetchBufferSize" -> "1gb", "SHARDSPERTASK" -> "2", "maxFetchDuration" -> "1s",
      "coalesceBinSize" -> "10", "CoalesceThresholdBlockSize" -> "10").foreach { case (name, value) =>
      val e = intercept[KinesisOptionException](reads(api, opts = options(name -> value)).checkOptions())
      e.getCondition shouldBe "KINESIS_OPTION_NOT_IN_REAL_TIME"
      e.getMessage should include(s"Option '$name' does not apply in real-time mode (trigger realTime): " +
        "it tunes prefetching")
    }
    noException should be thrownBy reads(api,
      opts = options("minFetchPeriod" -> "200ms",
        "maxRecordsPerFetch" -> "100", "shardFetchInterval" -> "1s")).checkOptions()
  }
}
