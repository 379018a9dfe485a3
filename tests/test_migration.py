# SPDX-License-Identifier: Apache-2.0
"""End to end, queries written for other Kinesis connectors: qubole's getting-started word count
and awslabs' README reads and write run against the local Kinesis with no change but the format
name, and a pipeline moved here mid-stream continues with every record exactly once."""

import json
import uuid

import pytest

from kinesis_local import FAKE_ACCESS_KEY, FAKE_SECRET_KEY
from streaming import kinesis_reader, make_records, run_available_now

WORDS = ["Kinesis", "Connector", "for", "Apache", "Spark", "Spark"]


def run_to_memory(df, name, tmp_path, mode="complete"):
    query = (
        df.writeStream.format("memory")
        .queryName(name)
        .outputMode(mode)
        .option("checkpointLocation", str(tmp_path / name))
        .trigger(availableNow=True)
        .start()
    )
    assert query.awaitTermination(240)
    assert query.exception() is None


def test_quboles_getting_started_word_count_runs_as_written(spark, kinesis, tmp_path):
    stream = kinesis.create_stream(shards=2)
    kinesis.put_records(stream, [("1", w.encode()) for w in WORDS])
    kinesis_df = (
        spark.readStream.format("kinesis")
        .option("streamName", stream)
        .option("endpointUrl", kinesis.endpoint)
        .option("awsAccessKeyId", FAKE_ACCESS_KEY)
        .option("awsSecretKey", FAKE_SECRET_KEY)
        .option("startingposition", "TRIM_HORIZON")
        .option("streamColumnName", "streamName")
        .load()
    )
    assert [f.name for f in kinesis_df.schema.fields][:3] == ["partitionKey", "data", "streamName"]
    counts = kinesis_df.selectExpr("CAST(data AS STRING)").groupBy("data").count()
    run_to_memory(counts, "qubole_words", tmp_path)
    got = {r["data"]: r["count"] for r in spark.sql("select * from qubole_words").collect()}
    assert got == {"Kinesis": 1, "Connector": 1, "for": 1, "Apache": 1, "Spark": 2}


@pytest.mark.parametrize("consumer_type", ["GetRecords", "SubscribeToShard"])
def test_awslabs_readme_read_and_write_run_as_written(spark, kinesis, tmp_path, consumer_type):
    source, copy = kinesis.create_stream(shards=2), kinesis.create_stream(shards=1)
    records = make_records(30, "awslabs")
    kinesis.put_records(source, records)
    reader = (
        spark.readStream.format("aws-kinesis")
        .option("kinesis.region", kinesis.region)
        .option("kinesis.streamName", source)
        .option("kinesis.consumerType", consumer_type)
        .option("kinesis.endpointUrl", kinesis.endpoint)
        .option("kinesis.startingposition", "TRIM_HORIZON")
    )
    if consumer_type == "SubscribeToShard":
        reader = reader.option("kinesis.consumerName", f"TestConsumer-{uuid.uuid4().hex[:8]}")
    query = (
        reader.load()
        .selectExpr("CAST(rand() AS STRING) as partitionKey", "CAST(data AS STRING)")
        .writeStream.format("aws-kinesis")
        .outputMode("append")
        .option("kinesis.region", kinesis.region)
        .option("kinesis.streamName", copy)
        .option("kinesis.endpointUrl", kinesis.endpoint)
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .trigger(availableNow=True)
        .start()
    )
    assert query.awaitTermination(240)
    assert query.exception() is None

    run_available_now(kinesis_reader(spark, kinesis, copy), tmp_path / "copy", tmp_path / "copy-checkpoint")
    copied = sorted(bytes(r.data) for r in spark.read.parquet(str(tmp_path / "copy")).collect())
    assert copied == sorted(data for _, data in records)


def test_a_pipeline_moved_here_mid_stream_continues_after_the_last_record_it_committed(spark, kinesis, tmp_path):
    """The old connector committed the first records of each shard; given their last sequence
    numbers as per-shard positions, this connector reads every later record exactly once."""
    stream = kinesis.create_stream(shards=2)
    before = make_records(20, "before")
    put = kinesis.put_records(stream, before)
    last = {}
    for shard, seq in put:
        last[shard] = max(last.get(shard, seq), seq, key=int)
    after = make_records(20, "after")
    kinesis.put_records(stream, after)

    shards = {shard: {"type": "after", "seq": seq} for shard, seq in last.items()}
    positions = {"version": 1, "shards": {stream: shards}}
    run_available_now(
        kinesis_reader(spark, kinesis, stream, initialPosition=json.dumps(positions)),
        tmp_path / "out",
        tmp_path / "checkpoint",
    )
    got = sorted(bytes(r.data) for r in spark.read.parquet(str(tmp_path / "out")).collect())
    assert got == sorted(data for _, data in after)


def test_qubole_per_shard_startingposition_continues_where_each_shard_says(spark, kinesis, tmp_path):
    """qubole's startingposition as per-shard JSON (its offset log's form): a shard after a
    sequence number continues after it, a shard at TRIM_HORIZON reads from its start."""
    stream = kinesis.create_stream(shards=2)
    before = make_records(20, "before")
    put = kinesis.put_records(stream, before)
    shards = sorted({shard for shard, _ in put})
    skipped = shards[0]
    last = max((seq for shard, seq in put if shard == skipped), key=int)
    after = make_records(20, "after")
    put_after = kinesis.put_records(stream, after)

    position = {
        "metadata": {"streamName": stream, "batchId": "7"},
        skipped: {"iteratorType": "AFTER_SEQUENCE_NUMBER", "iteratorPosition": last},
        shards[1]: {"iteratorType": "TRIM_HORIZON", "iteratorPosition": ""},
    }
    reader = (
        spark.readStream.format("kinesis")
        .option("streamName", stream)
        .option("endpointUrl", kinesis.endpoint)
        .option("region", kinesis.region)
        .option("startingposition", json.dumps(position))
        .option("maxFetchDuration", "2s")
    )
    run_available_now(
        reader.load(),
        tmp_path / "out",
        tmp_path / "checkpoint",
    )
    expected = [r for r, (shard, _) in zip(before, put) if shard != skipped] + after
    assert len(put_after) == len(after)
    got = sorted(bytes(r.data) for r in spark.read.parquet(str(tmp_path / "out")).collect())
    assert got == sorted(data for _, data in expected)
