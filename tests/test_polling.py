# SPDX-License-Identifier: Apache-2.0
"""End to end, the polling source's guarantees: exact replays, resharding while a query runs,
start positions, triggers, metrics, batch reads, and a re-created stream."""

import json
import time
from datetime import datetime, timedelta, timezone

import pytest
from pyspark.errors import PySparkException, StreamingQueryException

from pyspark_kinesis import KinesisSourceOptions
from streaming import READ_MODES, assert_key_order, kinesis_reader, make_records, mode_options, run_available_now
from waiting import settle, wait_for


def keyed_records(tag, n, keys=12):
    """Records whose payload names their partition key and their number within it."""
    counters = {}
    out = []
    for i in range(n):
        key = f"{tag}-k{i % keys}"
        counters[key] = counters.get(key, 0) + 1
        out.append((key, json.dumps({"key": key, "n": counters[key]}).encode()))
    return out


@pytest.mark.parametrize("mode", READ_MODES)
def test_a_failed_batch_is_re_run_with_exactly_the_same_records(spark, kinesis, tmp_path, mode):
    stream = kinesis.create_stream(shards=2)
    read = mode_options(mode)
    kinesis.put_records(stream, make_records(60, "first"))
    marker, attempts = tmp_path / "failed-once", tmp_path / "attempts"
    attempts.mkdir()
    out, checkpoint = tmp_path / "out", tmp_path / "checkpoint"

    def sink(batch, batch_id):
        seqs = sorted(r.sequenceNumber for r in batch.select("sequenceNumber").collect())
        (attempts / f"{batch_id}-{time.time_ns()}.json").write_text(json.dumps(seqs))
        batch.write.mode("overwrite").parquet(str(out / f"batch={batch_id}"))
        if batch_id == 1 and not marker.exists():
            marker.write_text("x")
            raise RuntimeError("the sink fails once, after writing")

    def run():
        query = (
            kinesis_reader(spark, kinesis, stream, **read)
            .writeStream.foreachBatch(sink)
            .option("checkpointLocation", str(checkpoint))
            .trigger(availableNow=True)
            .start()
        )
        query.awaitTermination(240)
        return query

    run()
    kinesis.put_records(stream, make_records(40, "second"))
    with pytest.raises(StreamingQueryException, match="the sink fails once"):
        run()
    run()  # restarted from the checkpoint: batch 1 runs again

    tries = sorted(attempts.glob("1-*.json"))
    assert len(tries) == 2
    assert json.loads(tries[0].read_text()) == json.loads(tries[1].read_text()), "the re-run read other records"
    keys = [r.partitionKey for r in spark.read.parquet(str(out)).collect()]
    assert sorted(keys) == sorted(k for k, _ in make_records(60, "first") + make_records(40, "second"))


def test_resharding_while_the_query_runs_loses_and_repeats_nothing(spark, kinesis, tmp_path):
    client = kinesis.client
    stream = kinesis.create_stream(shards=2)
    out = tmp_path / "out"

    def sink(batch, batch_id):
        batch.selectExpr("CAST(data AS STRING) AS body", "shardId", "sequenceNumber").withColumnRenamed(
            "body", "data"
        ).write.mode("append").parquet(str(out / f"batch={batch_id}"))

    query = (
        kinesis_reader(spark, kinesis, stream, maxFetchDuration="500ms", shardFetchInterval="200ms")
        .writeStream.foreachBatch(sink)
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .trigger(processingTime="500 milliseconds")
        .start()
    )
    produced = []

    def sink_rows():
        # Only committed batches: a batch being written has its files under _temporary.
        done = [str(d) for d in out.glob("batch=*") if (d / "_SUCCESS").exists()]
        return spark.read.option("basePath", str(out)).parquet(*done).count() if done else 0

    def produce(tag, n=60):
        """Puts records and waits until the query has read them, so each reshard comes between batches."""
        records = keyed_records(tag, n)
        kinesis.put_records(stream, records)
        produced.extend(records)
        wait_for(lambda: sink_rows() >= len(produced), f"the {tag} records in the sink", query, timeout=180)

    def open_shards():
        shards = client.list_shards(StreamName=stream)["Shards"]
        return [s for s in shards if "EndingSequenceNumber" not in s["SequenceNumberRange"]]

    try:
        produce("before")
        first = open_shards()[0]
        low, high = int(first["HashKeyRange"]["StartingHashKey"]), int(first["HashKeyRange"]["EndingHashKey"])
        client.split_shard(StreamName=stream, ShardToSplit=first["ShardId"], NewStartingHashKey=str((low + high) // 2))
        kinesis.wait_active(stream)
        produce("split")
        shards = sorted(open_shards(), key=lambda s: int(s["HashKeyRange"]["StartingHashKey"]))
        client.merge_shards(
            StreamName=stream, ShardToMerge=shards[0]["ShardId"], AdjacentShardToMerge=shards[1]["ShardId"]
        )
        kinesis.wait_active(stream)
        produce("merge")
        client.update_shard_count(StreamName=stream, TargetShardCount=4, ScalingType="UNIFORM_SCALING")
        kinesis.wait_active(stream)
        produce("scaled")
        settle(query)  # a record read twice would be in the sink by now
    finally:
        query.stop()

    rows = spark.read.parquet(str(out)).collect()
    assert len(rows) == len(produced), "records lost or repeated"
    assert sorted(r.data for r in rows) == sorted(d.decode() for _, d in produced)
    assert len({r.shardId for r in rows}) > 2, "children of the reshard were read"
    assert_key_order(rows)


def test_available_now_reads_what_existed_when_it_started_and_stops(spark, kinesis, tmp_path):
    stream = kinesis.create_stream(shards=2)
    before = make_records(80, "before")
    kinesis.put_records(stream, before)
    out, checkpoint = tmp_path / "out", tmp_path / "checkpoint"
    late = make_records(30, "late")

    def sink(batch, batch_id):
        if batch_id == 0:
            kinesis.put_records(stream, late)  # arrive after the run started
        batch.write.mode("append").parquet(str(out))

    def run():
        query = (
            kinesis_reader(spark, kinesis, stream)
            .writeStream.foreachBatch(sink)
            .option("checkpointLocation", str(checkpoint))
            .trigger(availableNow=True)
            .start()
        )
        assert query.awaitTermination(240), "Trigger.AvailableNow did not stop"
        assert query.exception() is None

    run()
    assert sorted(r.partitionKey for r in spark.read.parquet(str(out)).collect()) == sorted(k for k, _ in before)
    run()
    assert sorted(r.partitionKey for r in spark.read.parquet(str(out)).collect()) == sorted(k for k, _ in before + late)


def test_available_now_over_a_backlog_of_several_rounds_reads_each_record_once_across_a_failed_batch(
    spark, kinesis, tmp_path
):
    # At most 5 GetRecords of 20 records a second per shard, in rounds of 1 s: 800 records a
    # shard take at least 8 prefetch rounds, and a batch fails and runs again in between.
    stream = kinesis.create_stream(shards=2)
    produced = make_records(1600, "backlog")  # at most 100 a second per shard: rounds of at most 100
    kinesis.put_records(stream, produced)
    out, checkpoint = tmp_path / "out", tmp_path / "checkpoint"
    failed = []

    def sink(batch, batch_id):
        if batch_id == 1 and not failed:
            failed.append(batch_id)
            raise RuntimeError("the sink fails once")
        batch.write.mode("append").parquet(str(out))

    def run():
        query = (
            kinesis_reader(spark, kinesis, stream, maxFetchDuration="1s", maxRecordsPerFetch="20")
            .writeStream.foreachBatch(sink)
            .option("checkpointLocation", str(checkpoint))
            .trigger(availableNow=True)
            .start()
        )
        assert query.awaitTermination(240), "Trigger.AvailableNow did not stop"
        return query

    with pytest.raises(StreamingQueryException, match="the sink fails once"):
        run()
    second = run()
    assert second.exception() is None
    rows = spark.read.parquet(str(out)).collect()
    assert len(rows) == len(produced), "records lost or repeated"
    assert sorted((r.partitionKey, bytes(r.data)) for r in rows) == sorted(produced)


def test_trigger_once_and_processing_time_read_the_stream(spark, kinesis, tmp_path):
    stream = kinesis.create_stream(shards=2)
    kinesis.put_records(stream, make_records(25, "once"))
    once = (
        kinesis_reader(spark, kinesis, stream)
        .writeStream.format("memory")
        .queryName("once_rows")
        .option("checkpointLocation", str(tmp_path / "c1"))
        .trigger(once=True)
        .start()
    )
    assert once.awaitTermination(240)
    assert spark.table("once_rows").count() == 25

    default = (
        kinesis_reader(spark, kinesis, stream)
        .writeStream.format("memory")
        .queryName("default_rows")
        .option("checkpointLocation", str(tmp_path / "c2"))
        .start()
    )
    try:
        wait_for(lambda: spark.table("default_rows").count() == 25, query=default, what="25 rows")
    finally:
        default.stop()


def test_an_idle_stream_runs_no_batches_and_polls_gently(spark, kinesis, tmp_path):
    stream = kinesis.create_stream(shards=2)
    spark.conf.set("spark.sql.streaming.noDataProgressEventInterval", "1000")
    query = (
        kinesis_reader(spark, kinesis, stream, maxFetchDuration="2s")
        .writeStream.format("noop")
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .start()
    )
    try:
        started = time.monotonic()
        wait_for(lambda: len(query.recentProgress) >= 10, "ten progress events of the idle query", query)
        idle_s = time.monotonic() - started
        progress = query.recentProgress
        rounds = [int(p["sources"][0]["metrics"]["prefetchRounds"]) for p in progress if p["sources"][0].get("metrics")]
    finally:
        query.stop()
        spark.conf.unset("spark.sql.streaming.noDataProgressEventInterval")
    assert all(p["numInputRows"] == 0 for p in progress)
    # Spark runs the first batch (from no offset to the initial one); idle triggers after it
    # report the next batch id without running it.
    assert {p["batchId"] for p in progress} <= {0, 1}, "batches ran without data"
    # An idle prefetch task keeps polling (paced) for maxFetchDuration before it returns.
    assert rounds and max(rounds) <= idle_s / 2 + 2


def test_idle_triggers_of_a_processing_time_trigger_answer_at_once_without_waiting_for_records(
    spark, kinesis, tmp_path
):
    # A trigger that lasts longer than its interval makes Spark warn that the query falls behind,
    # at every idle trigger: Spark spaces these triggers itself, so the source does not wait.
    stream = kinesis.create_stream(shards=2)
    kinesis.put_records(stream, make_records(10, "first"))
    spark.conf.set("spark.sql.streaming.noDataProgressEventInterval", "10")

    def idle(progress):
        first_rows = next((i for i, p in enumerate(progress) if p["numInputRows"]), len(progress))
        return [p for p in progress[first_rows + 1 :] if p["numInputRows"] == 0]

    def read_and_idle():
        progress = query.recentProgress
        return sum(p["numInputRows"] for p in progress) == 10 and len(idle(progress)) >= 3

    query = (
        kinesis_reader(spark, kinesis, stream)
        .writeStream.format("noop")
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .trigger(processingTime="1 second")
        .start()
    )
    try:
        wait_for(read_and_idle, "the 10 records, then three idle triggers", query)
        progress = query.recentProgress
    finally:
        query.stop()
        spark.conf.unset("spark.sql.streaming.noDataProgressEventInterval")
    assert [p["sources"][0]["metrics"]["idleWaitMs"] for p in idle(progress)] == ["0"] * len(idle(progress))


def test_progress_reports_the_lag_behind_a_backlog_and_none_once_caught_up(spark, kinesis, tmp_path):
    """The lag a user watches: about the age of the backlog while the query works through it,
    small once it has read everything; and the records fetched, all of them."""
    stream = kinesis.create_stream(shards=1)
    backlog, tip, age_s = make_records(200, "backlog"), make_records(10, "tip"), 3
    kinesis.put_records(stream, backlog)
    backlog_put = time.monotonic()
    wait_for(lambda: time.monotonic() - backlog_put >= age_s, what=f"the backlog to be {age_s} s older than the tip")
    kinesis.put_records(stream, tip)
    # Small fetches and short rounds: the first batch ends with most of the backlog unread.
    reader = kinesis_reader(
        spark, kinesis, stream, maxRecordsPerFetch="5", minFetchPeriod="200ms", maxFetchDuration="1s"
    )
    query = run_available_now(reader, tmp_path / "sink", tmp_path / "checkpoint")
    metrics = [p["sources"][0]["metrics"] for p in query.recentProgress if p["numInputRows"] > 0]
    assert query.recentProgress[0]["sources"][0]["description"] == f"KinesisV2[{stream}]"
    assert len(metrics) > 1, "the backlog was read in one batch: nothing was behind when a batch ended"
    first, last = metrics[0], metrics[-1]
    assert int(first["fetchedRecords"]) < len(backlog)
    for name in ("avgMsBehindLatest", "maxMsBehindLatest", "minMsBehindLatest"):
        assert float(first[name]) >= age_s * 1000 * 0.9, (name, first)
        assert float(last[name]) < 1000, (name, last)
    assert int(last["fetchedRecords"]) == len(backlog) + len(tip)
    assert int(last["throttleEvents"]) == 0


def test_throttled_reads_reach_the_reader_which_backs_off_and_counts_them(spark, kinesis, fault_proxy, tmp_path):
    """Kinesis refusing GetRecords is seen by the shard's reader (not retried away inside the
    SDK): it halves its reads, backs off, and each refusal shows in throttleEvents."""
    from faults import Fault

    stream = kinesis.create_stream(shards=1)
    # A first run over the empty stream stores the query's start, so that the second run's reader
    # makes the first GetRecords calls (a query's first start looks at each shard's first record).
    run_available_now(
        kinesis_reader(spark, kinesis, stream, endpoint=fault_proxy.endpoint),
        tmp_path / "sink",
        tmp_path / "checkpoint",
    )
    records = make_records(40)
    kinesis.put_records(stream, records)
    fault_proxy.add(Fault.error("GetRecords", "ProvisionedThroughputExceededException", first=3))
    query = run_available_now(
        kinesis_reader(spark, kinesis, stream, endpoint=fault_proxy.endpoint),
        tmp_path / "sink",
        tmp_path / "checkpoint",
    )
    read = spark.read.parquet(str(tmp_path / "sink")).collect()
    assert sorted(r.partitionKey for r in read) == sorted(k for k, _ in records)
    assert fault_proxy.injected[("GetRecords", "ProvisionedThroughputExceededException")] == 3
    throttled = max(int(p["sources"][0]["metrics"]["throttleEvents"]) for p in query.recentProgress)
    assert throttled == 3


def test_at_timestamp_reads_records_at_or_after_it(spark, kinesis, tmp_path):
    stream = kinesis.create_stream(shards=2)
    kinesis.put_records(stream, make_records(20, "old"))
    # The local Kinesis stamps arrivals to the second: the timestamp is a clear second after
    # the old records and before the new ones.
    old_put = datetime.now(timezone.utc)
    wait_for(lambda: datetime.now(timezone.utc) - old_put >= timedelta(seconds=1.5), what="1.5 s past the old records")
    since = datetime.now(timezone.utc)
    wait_for(lambda: datetime.now(timezone.utc) - since >= timedelta(seconds=1.5), what="1.5 s past the timestamp")
    new = make_records(20, "new")
    kinesis.put_records(stream, new)

    reader = (
        KinesisSourceOptions()
        .initial_position_at_timestamp(since)
        .apply(
            spark.readStream.format("kinesis")
            .option("streamName", stream)
            .option("endpoint", kinesis.endpoint)
            .option("region", kinesis.region)
            .option("maxFetchDuration", "2s")
        )
    )
    run_available_now(reader.load(), tmp_path / "sink", tmp_path / "checkpoint")
    written = spark.read.parquet(str(tmp_path / "sink")).collect()
    assert sorted(r.partitionKey for r in written) == sorted(k for k, _ in new)


def test_initial_position_at_sequence_numbers_replays_from_there(spark, kinesis, tmp_path):
    stream = kinesis.create_stream(shards=1)
    records = make_records(30)
    placed = kinesis.put_records(stream, records)
    shard, seq = placed[10]
    reader = (
        KinesisSourceOptions()
        .initial_position_at_sequences({stream: {shard: seq}})
        .apply(
            spark.readStream.format("kinesis")
            .option("streamName", stream)
            .option("endpoint", kinesis.endpoint)
            .option("region", kinesis.region)
            .option("maxFetchDuration", "2s")
        )
    )
    run_available_now(reader.load(), tmp_path / "sink", tmp_path / "checkpoint")
    assert sorted(r.partitionKey for r in spark.read.parquet(str(tmp_path / "sink")).collect()) == sorted(
        k for k, _ in records[10:]
    )


def test_batch_read_from_the_start_to_the_tip_or_to_given_positions(spark, kinesis):
    stream = kinesis.create_stream(shards=3)
    records = make_records(90)
    placed = kinesis.put_records(stream, records)

    def batch_reader():
        return (
            spark.read.format("kinesis")
            .option("streamName", stream)
            .option("endpoint", kinesis.endpoint)
            .option("region", kinesis.region)
        )

    rows = batch_reader().load().collect()
    assert sorted((r.partitionKey, bytes(r.data)) for r in rows) == sorted(records)

    # Up to the 10th record of each shard.
    ends = {}
    for shard, seq in placed:
        ends.setdefault(shard, []).append(seq)
    cut = {shard: seqs[9] for shard, seqs in ends.items()}
    bounded = KinesisSourceOptions().ending_position_at_sequences({stream: cut}).apply(batch_reader()).load()
    assert bounded.count() == 10 * len(cut)


def created_at(kinesis, stream):
    summary = kinesis.client.describe_stream_summary(StreamName=stream)["StreamDescriptionSummary"]
    return summary["StreamCreationTimestamp"]


def test_a_checkpoint_of_a_deleted_and_recreated_stream_is_refused(spark, kinesis, tmp_path):
    stream = kinesis.create_stream(shards=1)
    kinesis.put_records(stream, make_records(10))
    checkpoint = tmp_path / "checkpoint"
    run_available_now(kinesis_reader(spark, kinesis, stream), tmp_path / "sink", checkpoint)

    first_created = created_at(kinesis, stream)
    kinesis.client.delete_stream(StreamName=stream)
    wait_for(lambda: stream not in kinesis.client.list_streams()["StreamNames"], what="deletion")
    # Creation times are to the second: the stream made again is a second younger.
    wait_for(
        lambda: datetime.now(timezone.utc) - first_created >= timedelta(seconds=1),
        what="a second past the first stream's creation",
    )
    kinesis.create_stream(name=stream, shards=1)
    assert created_at(kinesis, stream) != first_created, "the stream made again has the first one's creation time"
    kinesis.put_records(stream, make_records(10))

    with pytest.raises(PySparkException, match="KINESIS_STREAM_RECREATED"):
        run_available_now(kinesis_reader(spark, kinesis, stream), tmp_path / "sink", checkpoint, timeout=120)
