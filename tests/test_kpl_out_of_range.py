# SPDX-License-Identifier: Apache-2.0
"""End to end, KPL user records whose hash key lies outside the shard holding their aggregate.

The AWS aggregation libraries (aws-kinesis-agg for Python, and its Node, Go and Java siblings)
mix partition keys in one aggregate on purpose and put it under the first record's key: most
user records then sit on a shard that does not own their key, and they are the producer's only
copy. Every one of them comes out exactly once, in every read path. Only a copy a producer
writes again is dropped: this connector's sink marks its aggregates, so after a split the rows
it sent again are read once; the KCL's filter is there as an explicit option."""

import hashlib
import json
import sys
import time
from pathlib import Path

import pytest
from aws_kinesis_agg.aggregator import RecordAggregator
from pyspark import cloudpickle
from pyspark.sql import functions as F
from realtime import deliveries, next_commits, realtime_reader, start_realtime, wait_for

from streaming import (
    kinesis_reader,
    kinesis_writer,
    mode_options,
    read_all,
    read_deaggregated,
    run_available_now,
)

# The split_once UDF below runs in Python workers, which do not have tests/ on their path.
cloudpickle.register_pickle_by_value(sys.modules[__name__])

AGGREGATES, PER_AGGREGATE = 10, 100


def mixed_key_aggregates(tag):
    """AGGREGATES aggregates of PER_AGGREGATE user records with distinct keys, made by
    aws-kinesis-agg: [(outer partition key, data)], and every user record as (key, bytes)."""
    puts, users = [], []
    for a in range(AGGREGATES):
        agg = RecordAggregator()
        for i in range(PER_AGGREGATE):
            key, data = f"{tag}-{a}-{i}", json.dumps({"a": a, "i": i}).encode()
            assert agg.add_user_record(key, data) is None, "the aggregate filled up early"
            users.append((key, data))
        outer_key, _, data = agg.clear_and_get().get_contents()
        puts.append((outer_key, data))
    return puts, users


def outside_their_shard(kinesis, stream, users, put):
    """How many user records sit on a shard not owning their key (put: [(shardId, seq)] per aggregate)."""
    ranges = {
        s["ShardId"]: (int(s["HashKeyRange"]["StartingHashKey"]), int(s["HashKeyRange"]["EndingHashKey"]))
        for s in kinesis.client.list_shards(StreamName=stream)["Shards"]
    }
    count = 0
    for a, (shard, _) in enumerate(put):
        low, high = ranges[shard]
        for key, _ in users[a * PER_AGGREGATE : (a + 1) * PER_AGGREGATE]:
            count += not low <= int(hashlib.md5(key.encode()).hexdigest(), 16) <= high
    return count


def source_metric(query, name):
    return max(
        int(p["sources"][0]["metrics"].get(name, 0)) for p in query.recentProgress if p["sources"][0].get("metrics")
    )


@pytest.mark.parametrize("shards,mode", [(2, "polling"), (4, "polling"), (2, "efo"), (4, "efo")])
def test_mixed_key_aggregates_come_out_exactly_once_in_a_stream(spark, kinesis, tmp_path, shards, mode):
    stream = kinesis.create_stream(shards=shards)
    puts, users = mixed_key_aggregates(f"s{shards}")
    put = kinesis.put_records(stream, puts)
    outside = outside_their_shard(kinesis, stream, users, put)
    assert outside > len(users) / 3, "the aggregates should mix keys of every shard"

    query = run_available_now(
        kinesis_reader(spark, kinesis, stream, **mode_options(mode)), tmp_path / "out", tmp_path / "checkpoint"
    )
    rows = spark.read.parquet(str(tmp_path / "out")).collect()
    assert sorted((r.partitionKey, bytes(r.data)) for r in rows) == sorted(users)
    assert source_metric(query, "outOfRangeRecords") == outside
    assert source_metric(query, "outOfRangeRecordsDropped") == 0


def test_mixed_key_aggregates_come_out_exactly_once_in_a_batch_read(spark, kinesis):
    stream = kinesis.create_stream(shards=4)
    puts, users = mixed_key_aggregates("batch")
    kinesis.put_records(stream, puts)
    rows = (
        spark.read.format("kinesis")
        .option("streamName", stream)
        .option("endpoint", kinesis.endpoint)
        .option("region", kinesis.region)
        .load()
        .collect()
    )
    assert sorted((r.partitionKey, bytes(r.data)) for r in rows) == sorted(users)


# A real-time query needs a task slot per shard: local[2] has two.
@pytest.mark.parametrize("mode", ["polling", "efo"])
def test_mixed_key_aggregates_come_out_exactly_once_in_real_time_mode(spark, kinesis, tmp_path, mode, short_batches):
    stream = kinesis.create_stream(shards=2)
    puts, users = mixed_key_aggregates(f"rt-{mode}")
    kinesis.put_records(stream, puts)
    sink, checkpoint = tmp_path / "sink", tmp_path / "checkpoint"
    query = start_realtime(realtime_reader(spark, kinesis, stream, **mode_options(mode)), sink, checkpoint)
    try:
        wait_for(lambda: len(deliveries(sink)) >= len(users), "every user record", query)
        next_commits(checkpoint, query)  # a user record read twice would be in the sink by now
    finally:
        query.stop()
    got = sorted((r["key"], r["data"].encode()) for r in deliveries(sink))
    assert got == sorted(users)


def test_drop_is_the_kcl_filter_and_drop_after_split_keeps_aggregates_of_a_stream_never_split(spark, kinesis, tmp_path):
    stream = kinesis.create_stream(shards=2)
    puts, users = mixed_key_aggregates("policy")
    put = kinesis.put_records(stream, puts)
    outside = outside_their_shard(kinesis, stream, users, put)

    def read(policy):
        out = tmp_path / policy
        query = run_available_now(
            kinesis_reader(spark, kinesis, stream, outOfRangeUserRecords=policy), out / "rows", out / "checkpoint"
        )
        return spark.read.parquet(str(out / "rows")).count(), source_metric(query, "outOfRangeRecordsDropped")

    assert read("drop") == (len(users) - outside, outside)
    assert read("dropAfterSplit") == (len(users), 0)


def split_once(stream, endpoint, region, at_row, marker):
    """A UDF that returns its argument and, at row `at_row` of the first attempt, waits until
    the sink has sent its first rows, then splits the stream's only shard in two and waits
    until the split is done: the rest of the task is written with a shard map gone stale."""

    def apply(n, data):
        if n == at_row and not Path(marker).exists():
            Path(marker).write_text("split")
            import boto3

            client = boto3.client("kinesis", endpoint_url=endpoint, region_name=region)
            shard = client.list_shards(StreamName=stream)["Shards"][0]
            first = client.get_shard_iterator(
                StreamName=stream, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON"
            )["ShardIterator"]
            deadline = time.monotonic() + 60
            while not client.get_records(ShardIterator=first, Limit=1)["Records"]:
                assert time.monotonic() < deadline, "the sink sent no rows in 60 s"
                time.sleep(0.1)
            middle = (int(shard["HashKeyRange"]["StartingHashKey"]) + int(shard["HashKeyRange"]["EndingHashKey"])) // 2
            client.split_shard(StreamName=stream, ShardToSplit=shard["ShardId"], NewStartingHashKey=str(middle))
            deadline = time.monotonic() + 60
            while (
                client.describe_stream_summary(StreamName=stream)["StreamDescriptionSummary"]["StreamStatus"]
                != "ACTIVE"
            ):
                assert time.monotonic() < deadline, "the stream was not ACTIVE 60 s after the split"
                time.sleep(0.1)
        return data

    return F.udf(apply, "binary", useArrow=False)


def test_the_sinks_aggregates_across_a_split_are_read_once_each(spark, kinesis, tmp_path):
    """The sink lists the shards with its first row; the split then leaves its map stale, so its
    aggregates built for the parent land on one child with rows the other child owns. It sends
    those rows again; the copies it marked are dropped by this connector by default, and by the
    KCL's filter, while a reader that checks no range (aws-kinesis-agg) sees them twice."""
    stream = kinesis.create_stream(shards=1)
    rows = 3000
    split = split_once(stream, kinesis.endpoint, kinesis.region, at_row=1000, marker=str(tmp_path / "split"))
    # Rows of 300 bytes: the Python worker sends its results on as its output buffer fills, so
    # the sink has listed the shards and sent the first rows before the split.
    payload = F.rpad(F.col("id").cast("string"), 300, ".").cast("binary")
    frame = (
        spark.range(rows)
        .coalesce(1)
        .select(
            F.concat(F.lit("key-"), F.col("id").cast("string")).alias("partitionKey"),
            split(F.col("id"), payload).alias("data"),
        )
    )
    kinesis_writer(frame, kinesis, stream, aggregation="kpl").save()

    assert len(kinesis.client.list_shards(StreamName=stream)["Shards"]) == 3, "the stream was not split"
    assert len(read_deaggregated(kinesis, stream)) > rows, "no aggregate landed on a shard not owning its rows"
    assert len(read_all(kinesis, stream)) < rows / 10, "the rows were not aggregated"
    expected = sorted(f"key-{i}" for i in range(rows))
    for policy in ("keep", "drop"):
        out = tmp_path / policy
        run_available_now(
            kinesis_reader(spark, kinesis, stream, outOfRangeUserRecords=policy), out / "rows", out / "checkpoint"
        )
        got = sorted(r.partitionKey for r in spark.read.parquet(str(out / "rows")).collect())
        assert got == expected, f"{policy}: {len(got)} rows, {len(set(got))} distinct"
