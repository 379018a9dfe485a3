# SPDX-License-Identifier: Apache-2.0
"""End to end: the sink with aggregation=kpl against the local Kinesis. Rows bound for one
shard are packed into KPL aggregates; they are read back by the source (one row per user
record, with its own partition key, in order per key) and by aws-kinesis-agg's de-aggregator
from boto3 GetRecords, the format's reference implementation."""

import hashlib
import json

from streaming import (
    assert_first_copies_in_order,
    kinesis_reader,
    kinesis_writer,
    read_all,
    read_deaggregated,
    run_available_now,
    sink_metrics,
)

KEYS, PER_KEY = 40, 25


def keyed(keys=KEYS, per_key=PER_KEY):
    """(partitionKey, n, JSON data): record n of each key, n counting from 0."""
    return [(f"k{k}", n, json.dumps({"key": f"k{k}", "n": n}).encode()) for n in range(per_key) for k in range(keys)]


def keyed_frame(spark, records):
    """Two partitions, each key in one of them in n order, so each key's rows are one task's, in order."""
    return (
        spark.createDataFrame(records, "partitionKey string, n int, data binary")
        .repartition(2, "partitionKey")
        .sortWithinPartitions("n")
    )


def test_aggregated_rows_read_back_by_the_source_once_each_in_order_per_key(spark, kinesis, tmp_path):
    stream = kinesis.create_stream(shards=2)
    records = keyed()
    kinesis_writer(keyed_frame(spark, records), kinesis, stream, aggregation="kpl").save()

    kinesis_records = read_all(kinesis, stream)
    # Two tasks, two shards, small rows: a few aggregates (more only if maxPutLinger sent some early).
    assert len(kinesis_records) < len(records) / 20, f"{len(records)} rows, {len(kinesis_records)} Kinesis records"

    run_available_now(kinesis_reader(spark, kinesis, stream), tmp_path / "back", tmp_path / "chk")
    rows = spark.read.parquet(str(tmp_path / "back")).collect()
    assert sorted((r.partitionKey, bytes(r.data)) for r in rows) == sorted((k, d) for k, _, d in records)
    assert max(r.subSequenceNumber for r in rows) > 0, "the rows did not come out of aggregates"
    ordered = sorted(rows, key=lambda r: (r.shardId, int(r.sequenceNumber), r.subSequenceNumber))
    assert_first_copies_in_order([(r.partitionKey, json.loads(bytes(r.data))["n"]) for r in ordered])


def test_aggregates_read_by_aws_kinesis_agg_hold_each_row_on_the_shard_owning_its_key(spark, kinesis):
    stream = kinesis.create_stream(shards=2)
    records = keyed()
    kinesis_writer(keyed_frame(spark, records), kinesis, stream, aggregation="kpl").save()

    users = read_deaggregated(kinesis, stream)
    assert sorted((k, d) for _, k, d, _ in users) == sorted((k, d) for k, _, d in records)
    assert all(aggregated for *_, aggregated in users)
    # Each row sits in an aggregate on the shard its own partition key hashes to, as KPL does it.
    ranges = {
        s["ShardId"]: (int(s["HashKeyRange"]["StartingHashKey"]), int(s["HashKeyRange"]["EndingHashKey"]))
        for s in kinesis.client.list_shards(StreamName=stream)["Shards"]
    }
    for shard, key, _, _ in users:
        low, high = ranges[shard]
        assert low <= int(hashlib.md5(key.encode()).hexdigest(), 16) <= high, f"{key} on {shard}"
    assert_first_copies_in_order([(k, json.loads(d)["n"]) for _, k, d, _ in users])


def test_a_streaming_write_reports_rows_and_the_fewer_kinesis_records(spark, kinesis, tmp_path):
    source, copy = kinesis.create_stream(shards=1), kinesis.create_stream(shards=2)
    records = [(k, d) for k, _, d in keyed(keys=10, per_key=30)]
    kinesis.put_records(source, records)

    query = (
        kinesis_reader(spark, kinesis, source)
        .select("partitionKey", "data")
        .writeStream.format("kinesis")
        .option("streamName", copy)
        .option("aggregation", "kpl")
        .option("endpoint", kinesis.endpoint)
        .option("region", kinesis.region)
        .option("checkpointLocation", str(tmp_path / "chk"))
        .trigger(availableNow=True)
        .start()
    )
    assert query.awaitTermination(240)
    assert query.exception() is None

    metrics = sink_metrics(query)
    assert metrics["recordsWritten"] == len(records) and metrics["failedRecords"] == 0, metrics
    assert 1 <= metrics["kinesisRecordsWritten"] == len(read_all(kinesis, copy)) < len(records) / 10, metrics
    assert metrics["bytesWritten"] == sum(len(k) + len(d) for k, d in records)
    assert sorted((k, d) for _, k, d, _ in read_deaggregated(kinesis, copy)) == sorted(records)


def test_rows_with_explicit_hash_keys_keep_them_inside_the_aggregate(spark, kinesis):
    stream = kinesis.create_stream(shards=2)
    top = str(2**128 - 1)
    df = spark.createDataFrame(
        [(f"k{i}", f"v{i}", "0" if i % 2 else top) for i in range(20)],
        "partitionKey string, data string, explicitHashKey string",
    ).coalesce(1)
    kinesis_writer(df, kinesis, stream, aggregation="kpl").save()

    shards = sorted(s["ShardId"] for s in kinesis.client.list_shards(StreamName=stream)["Shards"])
    got = {data.decode(): shard for shard, _, data, _ in read_deaggregated(kinesis, stream)}
    assert got == {f"v{i}": shards[0] if i % 2 else shards[-1] for i in range(20)}
    assert len(read_all(kinesis, stream)) < 20
