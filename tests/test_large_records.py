# SPDX-License-Identifier: Apache-2.0
"""End to end, records of up to 10 MiB on a stream configured for them (MaxRecordSizeInKiB):
the sink writes them (plain and among KPL aggregates) and refuses one over the stream's limit,
naming it; polling, enhanced fan-out and real-time mode read them back whole. Against the
benchmark Kinesis (benchmarks/), which serves them from memory and honours a stream's limit on
PutRecord(s), data plus partition key, as Kinesis documents it (kinesis-mock 0.6.2 honours the
limit too, counting the data alone)."""

import sys
import uuid
from pathlib import Path

import boto3
import pytest
from botocore.exceptions import ClientError
from pyspark.sql import functions as F
from realtime import deliveries, start_realtime, wait_for

from streaming import mode_options

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from bench_backend import BENCH_JAR, BenchKinesis  # noqa: E402

MIB = 1024 * 1024
BIG = 10 * MIB - 16  # data of a row; with its partition key (under 16 bytes) within 10 MiB
BIG_ROWS = 2
SMALL_ROWS = 20


@pytest.fixture(scope="module")
def bench(kinesis):
    """The benchmark Kinesis, with no streams of its own; after `kinesis`, whose fixture put
    the fake credentials (which the endpoint accepts) in the environment."""
    if not BENCH_JAR.exists():
        pytest.fail(f"{BENCH_JAR} is missing: make bench-jar builds it")
    with BenchKinesis([]) as endpoint:
        endpoint.client = boto3.client("kinesis", endpoint_url=endpoint.endpoint, region_name=kinesis.region)
        yield endpoint


def create_stream(bench, max_record_kib=None):
    name = f"large-{uuid.uuid4().hex[:8]}"
    extra = {"MaxRecordSizeInKiB": max_record_kib} if max_record_kib else {}
    bench.client.create_stream(StreamName=name, ShardCount=2, **extra)
    return name


def rows(spark):
    """BIG_ROWS rows of BIG bytes, one on each of the two shards (a polling reader reads a shard's
    2 MiB a second: more would only make the test slower), and SMALL_ROWS small ones; every
    row's data starts with its id."""

    def ids(start, end, tail):
        data = F.concat(F.lpad(F.col("id").cast("string"), 8, "0"), tail)
        return spark.range(start, end).select(data.substr(1, 8).alias("partitionKey"), data.alias("data"))

    big = ids(0, BIG_ROWS, F.expr(f"repeat('x', {BIG - 8})")).withColumn(
        "explicitHashKey", F.when(F.col("partitionKey").cast("int") % 2 == 0, "0").otherwise(str(2**127))
    )
    small = ids(BIG_ROWS, BIG_ROWS + SMALL_ROWS, F.lit("-small")).withColumn(
        "explicitHashKey", F.lit(None).cast("string")
    )
    return big.union(small)


def digest(df):
    """(partitionKey, length, SHA-256) of each row's data, computed where the rows are."""
    return df.select("partitionKey", F.length("data").alias("length"), F.sha2("data", 256).alias("sha"))


def expected(spark):
    return sorted(tuple(r) for r in digest(rows(spark).withColumn("data", F.col("data").cast("binary"))).collect())


def write(spark, bench, stream, **options):
    (
        rows(spark)
        .write.format("kinesis")
        .option("streamName", stream)
        .option("endpoint", bench.endpoint)
        .option("region", "us-east-1")
        .options(**options)
        .save()
    )


def reader(spark, bench, stream, **options):
    return (
        spark.readStream.format("kinesis")
        .option("streamName", stream)
        .option("endpoint", bench.endpoint)
        .option("region", "us-east-1")
        .option("initialPosition", "trim_horizon")
        .options(**options)
        .load()
    )


@pytest.fixture(scope="module")
def written(spark, bench):
    """A 10 MiB stream the sink wrote the rows to, with KPL aggregation: the big rows go alone,
    the small ones in aggregates."""
    stream = create_stream(bench, max_record_kib=10240)
    write(spark, bench, stream, aggregation="kpl")
    return stream


def test_the_sink_writes_10_mib_rows_alone_and_small_ones_aggregated(spark, bench, written):
    sizes = []
    for shard in bench.client.list_shards(StreamName=written)["Shards"]:
        iterator = bench.client.get_shard_iterator(
            StreamName=written, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON"
        )["ShardIterator"]
        while iterator:  # one 10 MiB record per call: GetRecords answers hold at most 10 MiB
            answer = bench.client.get_records(ShardIterator=iterator)
            sizes += [len(r["Data"]) for r in answer["Records"]]
            iterator = answer.get("NextShardIterator") if answer["Records"] else None
    assert sorted(sizes)[-BIG_ROWS:] == [BIG] * BIG_ROWS
    assert len(sizes) < BIG_ROWS + SMALL_ROWS  # the small rows were aggregated


@pytest.mark.parametrize("mode, decoder", [("polling", "connector"), ("efo", "connector"), ("efo", "sdk")])
def test_micro_batches_read_10_mib_records_whole(spark, bench, written, tmp_path, mode, decoder):
    """Also through the AWS SDK's own decoding (recordDecoder = sdk), whose event stream decoder
    takes events of at most 24 MiB."""
    name = f"large_{mode}_{decoder}_{uuid.uuid4().hex[:6]}"
    source = reader(spark, bench, written, recordDecoder=decoder, **mode_options(mode))
    query = (
        digest(source)
        .writeStream.format("memory")
        .queryName(name)
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .trigger(availableNow=True)
        .start()
    )
    try:
        assert query.awaitTermination(180), "the query did not finish"
        assert query.exception() is None, query.exception()
        assert sorted(tuple(r) for r in spark.table(name).collect()) == expected(spark)
    finally:
        query.stop()


@pytest.mark.parametrize("mode", ("polling", "efo"))
def test_real_time_mode_reads_10_mib_records_whole(spark, bench, written, tmp_path, mode, short_batches):
    sink = tmp_path / "sink"
    source = reader(spark, bench, written, minFetchPeriod="200ms", **mode_options(mode))
    length_and_sha = F.concat_ws(":", F.length("data").cast("string"), F.sha2("data", 256))
    hashed = source.select(
        "sequenceNumber",
        "shardId",
        "partitionKey",
        "approximateArrivalTimestamp",
        length_and_sha.cast("binary").alias("data"),
    )
    query = start_realtime(hashed, sink, tmp_path / "checkpoint")
    try:
        wait_for(lambda: len(deliveries(sink)) >= BIG_ROWS + SMALL_ROWS, "every row", query, timeout=180)
    finally:
        query.stop()
    got = sorted((d["key"], *d["data"].split(":")) for d in deliveries(sink))
    assert [(k, int(n), sha) for k, n, sha in got] == expected(spark)


def test_a_row_over_the_streams_limit_is_refused_naming_the_limit(spark, bench):
    plain = create_stream(bench)  # MaxRecordSizeInKiB not set: 1 MiB
    one_over = spark.range(1).select(F.lit("k").alias("partitionKey"), F.expr(f"repeat('x', {MIB})").alias("data"))
    with pytest.raises(Exception) as refused:
        (
            one_over.write.format("kinesis")
            .option("streamName", plain)
            .option("endpoint", bench.endpoint)
            .option("region", "us-east-1")
            .save()
        )
    message = str(refused.value)
    assert "[KINESIS_SINK_RECORD_TOO_LARGE]" in message and "1048577 bytes" in message, message[:2000]
    assert "limit of 1048576 bytes (1024 KiB)" in message, message[:2000]

    bench.client.update_max_record_size(
        StreamARN=bench.client.describe_stream_summary(StreamName=plain)["StreamDescriptionSummary"]["StreamARN"],
        MaxRecordSizeInKiB=2048,
    )
    (
        one_over.write.format("kinesis")
        .option("streamName", plain)
        .option("endpoint", bench.endpoint)
        .option("region", "us-east-1")
        .save()
    )


def test_the_benchmark_kinesis_honours_a_streams_record_size_limit(bench):
    stream = create_stream(bench, max_record_kib=2048)
    summary = bench.client.describe_stream_summary(StreamName=stream)["StreamDescriptionSummary"]
    assert summary["MaxRecordSizeInKiB"] == 2048
    bench.client.put_record(StreamName=stream, PartitionKey="k", Data=b"x" * (2 * MIB - 1))
    with pytest.raises(ClientError, match="InvalidArgumentException.*2097152 bytes"):
        bench.client.put_record(StreamName=stream, PartitionKey="k", Data=b"x" * (2 * MIB))
    answer = bench.client.put_records(
        StreamName=stream,
        Records=[{"PartitionKey": "k", "Data": b"x"}, {"PartitionKey": "k", "Data": b"x" * (2 * MIB)}],
    )
    assert answer["FailedRecordCount"] == 1 and "SequenceNumber" in answer["Records"][0]
    assert answer["Records"][1]["ErrorCode"] == "InvalidArgumentException"
    with pytest.raises(ClientError, match="ValidationException"):
        bench.client.create_stream(StreamName=f"{stream}-b", ShardCount=1, MaxRecordSizeInKiB=10241)
