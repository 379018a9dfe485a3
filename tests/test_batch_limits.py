# SPDX-License-Identifier: Apache-2.0
"""End to end, batch size limits: maxRecordsPerTrigger and maxBytesPerTrigger over a backlog on
4 shards (every record once, no batch over its limit, as the query's progress counts it), with
Trigger.AvailableNow, with KPL aggregates cut between batches, and other connectors'
maxFetchRecordsPerShard translated."""

import json

import pytest
from aws_kinesis_agg.aggregator import RecordAggregator
from pyspark.errors import PySparkException

from streaming import kinesis_reader, make_records
from waiting import wait_for


def batch_rows(query):
    """numInputRows of each batch the query ran (from its progress), by batch id."""
    return {p["batchId"]: p["numInputRows"] for p in query.recentProgress if p["numInputRows"] > 0}


def run(df, out, checkpoint, available_now, expected, timeout=300):
    """Runs the query to a Parquet sink until it holds `expected` rows (or, AvailableNow, until it stops)."""
    writer = df.writeStream.format("parquet").option("path", str(out)).option("checkpointLocation", str(checkpoint))
    if available_now:
        query = writer.trigger(availableNow=True).start()
        assert query.awaitTermination(timeout), "Trigger.AvailableNow did not stop"
        assert query.exception() is None
    else:
        query = writer.trigger(processingTime="100 milliseconds").start()
        try:
            wait_for(lambda: sum(batch_rows(query).values()) >= expected, f"{expected} rows read", timeout=timeout)
        finally:
            query.stop()
    return query


def pairs(spark, out):
    return sorted((r.partitionKey, bytes(r.data)) for r in spark.read.parquet(str(out)).collect())


@pytest.mark.parametrize("available_now", [False, True], ids=["processing_time", "available_now"])
def test_max_records_per_trigger_over_a_backlog_on_4_shards(spark, kinesis, tmp_path, available_now):
    stream = kinesis.create_stream(shards=4)
    produced = make_records(2000, "backlog")
    kinesis.put_records(stream, produced)
    out, checkpoint = tmp_path / "out", tmp_path / "checkpoint"
    query = run(
        kinesis_reader(spark, kinesis, stream, maxRecordsPerTrigger="300"),
        out,
        checkpoint,
        available_now,
        len(produced),
    )
    rows = batch_rows(query)
    assert max(rows.values()) <= 300, f"a batch over maxRecordsPerTrigger: {rows}"
    assert len(rows) >= 2000 // 300, f"the backlog was not split into batches: {rows}"
    assert pairs(spark, out) == sorted(produced), "records lost or repeated"


def test_max_bytes_per_trigger(spark, kinesis, tmp_path):
    stream = kinesis.create_stream(shards=4)
    produced = [(f"key-{i}", bytes([i % 251]) * 1000) for i in range(400)]
    kinesis.put_records(stream, produced)
    out, checkpoint = tmp_path / "out", tmp_path / "checkpoint"
    # Each record weighs its 1000 bytes of data plus its key's bytes: at most 50 a batch.
    limit = 50 * 1000 + 50 * len("key-000")
    query = run(
        kinesis_reader(spark, kinesis, stream, maxBytesPerTrigger=str(limit)), out, checkpoint, True, len(produced)
    )
    rows = batch_rows(query)
    assert max(rows.values()) <= 50, f"a batch over maxBytesPerTrigger: {rows}"
    assert pairs(spark, out) == sorted(produced), "records lost or repeated"


def aggregate(records):
    agg = RecordAggregator()
    for key, data in records:
        agg.add_user_record(key, data)
    outer_key, _, data = agg.clear_and_get().get_contents()
    return outer_key, data


def test_kpl_aggregates_cut_between_batches_are_read_once_across_a_restart(spark, kinesis, tmp_path):
    stream = kinesis.create_stream(shards=1)
    users = [(f"u-k{i % 4}", json.dumps({"i": i}).encode()) for i in range(600)]
    # Aggregates of 150 user records each under a limit of 100: batches end inside aggregates.
    kinesis.put_records(stream, [aggregate(users[i : i + 150]) for i in range(0, 600, 150)])
    out, checkpoint = tmp_path / "out", tmp_path / "checkpoint"

    def query(expected):
        return run(kinesis_reader(spark, kinesis, stream, maxRecordsPerTrigger="100"), out, checkpoint, False, expected)

    first = query(200)  # stopped part way, inside an aggregate
    second = run(kinesis_reader(spark, kinesis, stream, maxRecordsPerTrigger="100"), out, checkpoint, True, len(users))
    for q in (first, second):
        assert max(batch_rows(q).values()) <= 100, f"a batch over maxRecordsPerTrigger: {batch_rows(q)}"
    assert pairs(spark, out) == sorted(users), "user records lost or repeated across the restart"


@pytest.mark.parametrize(
    "option", ["kinesis.executor.maxFetchRecordsPerShard", "kinesis.maxFetchRecordsPerShard"], ids=["qubole", "awslabs"]
)
def test_other_connectors_max_fetch_records_per_shard_bounds_each_shard_of_a_batch(spark, kinesis, tmp_path, option):
    stream = kinesis.create_stream(shards=2)
    produced = make_records(600, "per-shard")
    kinesis.put_records(stream, produced)
    out, checkpoint = tmp_path / "out", tmp_path / "checkpoint"
    query = run(kinesis_reader(spark, kinesis, stream, **{option: "100"}), out, checkpoint, True, len(produced))
    rows = batch_rows(query)
    assert max(rows.values()) <= 200, f"a batch over 100 records per shard: {rows}"
    assert pairs(spark, out) == sorted(produced), "records lost or repeated"


@pytest.mark.parametrize(
    "option, value", [("maxRecordsPerTrigger", "0"), ("maxRecordsPerTrigger", "many"), ("maxBytesPerTrigger", "-1kb")]
)
def test_a_bad_limit_is_refused_naming_the_option(spark, kinesis, option, value):
    with pytest.raises(PySparkException, match=option):
        kinesis_reader(spark, kinesis, "any-stream", **{option: value}).writeStream.format("console").start().stop()
