# SPDX-License-Identifier: Apache-2.0
"""End to end: Kinesis to Kinesis through the connector's foreach writer
(pyspark_kinesis.foreach_kinesis). A real-time query with Spark's checks on copies every record
once, each partition key in order; the Python example of docs/real-time.md ("The sink") runs as
written; the writer works in a micro-batch query too; bad options, columns and rows fail with
the connector's errors; and format("kinesis") in real-time mode gets Spark's refusal, and runs
with Spark's check off, as the docs say."""

import json
import re
from pathlib import Path

import pytest
from pyspark.errors import IllegalArgumentException, StreamingQueryException
from pyspark.sql import functions as F
from realtime import realtime_reader, wait_for

from pyspark_kinesis import KinesisSinkOptions, foreach_kinesis
from streaming import kinesis_reader, read_all

ALLOWLIST_CHECK = "spark.sql.streaming.realTimeMode.allowlistCheck"
DOCS = Path(__file__).resolve().parent.parent / "docs"


def keyed_records(keys, per_key, tag):
    """(partition key, JSON with key and n) for n = 0..per_key-1 of each key, interleaved."""
    return [
        (f"{tag}-k{k}", json.dumps({"key": f"{tag}-k{k}", "n": n}).encode())
        for n in range(per_key)
        for k in range(keys)
    ]


def sink_options(kinesis, stream):
    return KinesisSinkOptions().stream_name(stream).endpoint(kinesis.endpoint).region(kinesis.region)


def copied(kinesis, stream):
    """Every record of the stream as (key, data), shard by shard in stored order."""
    return [(key, data) for _, key, data in read_all(kinesis, stream)]


def assert_each_record_once_in_key_order(got, put):
    assert sorted(got) == sorted(put), "every record exactly once"
    per_key = {}
    for key, data in got:
        per_key.setdefault(key, []).append(json.loads(data)["n"])
    assert all(ns == sorted(ns) for ns in per_key.values()), "each partition key in the order put"


def test_a_real_time_query_copies_every_record_once_into_a_second_stream_in_key_order(
    spark, kinesis, tmp_path, short_batches
):
    assert spark.conf.get(ALLOWLIST_CHECK, "true") == "true", "Spark's sink check is on"
    source, target = kinesis.create_stream(shards=2), kinesis.create_stream(shards=2)
    first, second = keyed_records(6, 10, "before"), keyed_records(6, 10, "while")
    kinesis.put_records(source, first)
    query = (
        foreach_kinesis(realtime_reader(spark, kinesis, source), sink_options(kinesis, target))
        .outputMode("update")
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .trigger(realTime="2 seconds")  # type: ignore[call-overload]  # PySpark 4.2's annotations lack it
        .start()
    )
    try:
        wait_for(lambda: len(copied(kinesis, target)) >= len(first), "the records put before the start", query)
        kinesis.put_records(source, second)
        wait_for(lambda: len(copied(kinesis, target)) >= len(first + second), "the records put while it runs", query)
    finally:
        query.stop()
    assert_each_record_once_in_key_order(copied(kinesis, target), first + second)


def docs_python_example():
    """The Python block of docs/real-time.md's "The sink" section."""
    text = (DOCS / "real-time.md").read_text()
    section = text[text.index("## The sink\n") :]
    block = re.search(r"```python\n(.*?)```", section, re.S)
    assert block, 'docs/real-time.md\'s "The sink" has no Python example'
    return block.group(1)


def test_the_docs_python_example_runs_as_written(spark, kinesis, tmp_path):
    source, target = kinesis.create_stream(shards=1), kinesis.create_stream(shards=1)
    put = keyed_records(3, 5, "docs")
    kinesis.put_records(source, put)
    # Only the names, the place of Kinesis and the checkpoint differ from the page.
    code = docs_python_example()
    for name, value in [
        ('"/checkpoints/watch-events-clean"', repr(str(tmp_path / "checkpoint"))),
        ('"watch-events-clean"', repr(target)),
        ('"watch-events"', repr(source)),
        (
            '.option("region", "us-east-1")',
            f'.option("region", {kinesis.region!r}).option("endpoint", {kinesis.endpoint!r})',
        ),
        ('.region("us-east-1")', f".region({kinesis.region!r}).endpoint({kinesis.endpoint!r})"),
    ]:
        assert name in code, f"the example no longer has {name}: update this test with the page"
        code = code.replace(name, value)
    scope = {"spark": spark}
    exec(compile(code, "docs/real-time.md", "exec"), scope)
    query = scope["query"]
    try:
        wait_for(lambda: len(copied(kinesis, target)) >= len(put), "the example's copies", query)
    finally:
        query.stop()
    assert_each_record_once_in_key_order(copied(kinesis, target), put)


def test_the_writer_in_a_micro_batch_query(spark, kinesis, tmp_path):
    source, target = kinesis.create_stream(shards=2), kinesis.create_stream(shards=1)
    put = keyed_records(4, 25, "micro")
    kinesis.put_records(source, put)
    # The source's rows as they are: their other columns (stream, shardId, ...) are ignored.
    query = (
        foreach_kinesis(kinesis_reader(spark, kinesis, source), sink_options(kinesis, target))
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .trigger(availableNow=True)
        .start()
    )
    assert query.awaitTermination(180), "the micro-batch run did not finish"
    assert query.exception() is None
    assert_each_record_once_in_key_order(copied(kinesis, target), put)


def test_bad_options_and_columns_are_refused_when_the_query_is_defined(spark, kinesis):
    source = kinesis.create_stream(shards=1)
    df = kinesis_reader(spark, kinesis, source)
    with pytest.raises(IllegalArgumentException, match=r"KINESIS_INVALID_OPTION_VALUE.*maxPutLinger"):
        foreach_kinesis(df, {"streamName": "out", "region": kinesis.region, "maxPutLinger": "0ms"})
    with pytest.raises(IllegalArgumentException, match=r"KINESIS_SINK_MISSING_COLUMN.*partitionKey"):
        foreach_kinesis(df.select("data"), sink_options(kinesis, "out"))


def test_a_bad_row_fails_the_query_with_the_sinks_error(spark, kinesis, tmp_path):
    source, target = kinesis.create_stream(shards=1), kinesis.create_stream(shards=1)
    kinesis.put_records(source, keyed_records(1, 3, "bad"))
    rows = kinesis_reader(spark, kinesis, source).withColumn("partitionKey", F.lit(""))
    query = (
        foreach_kinesis(rows, sink_options(kinesis, target))
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .trigger(availableNow=True)
        .start()
    )
    with pytest.raises(StreamingQueryException) as failure:
        query.awaitTermination(180)
    assert "KINESIS_SINK_INVALID_VALUE" in str(failure.value)
    assert "column 'partitionKey' is empty" in str(failure.value)


def test_format_kinesis_in_real_time_mode_is_refused_by_spark_and_runs_with_its_check_off(
    spark, kinesis, tmp_path, short_batches
):
    source, target = kinesis.create_stream(shards=1), kinesis.create_stream(shards=1)
    put = keyed_records(2, 5, "check")
    kinesis.put_records(source, put)

    def start():
        return (
            realtime_reader(spark, kinesis, source)
            .select("partitionKey", "data")
            .writeStream.format("kinesis")
            .options(**sink_options(kinesis, target).to_dict())
            .option("checkpointLocation", str(tmp_path / "checkpoint"))
            .outputMode("update")
            .trigger(realTime="2 seconds")
            .start()
        )

    with pytest.raises(IllegalArgumentException) as refusal:
        start().stop()
    assert "OPERATOR_OR_SINK_NOT_IN_ALLOWLIST" in str(refusal.value)
    assert "io.github.sparkkinesis.KinesisTable" in str(refusal.value)

    spark.conf.set(ALLOWLIST_CHECK, "false")  # a warning instead; the sink takes update mode as append
    try:
        query = start()
        try:
            wait_for(lambda: len(copied(kinesis, target)) >= len(put), "the copies with the check off", query)
        finally:
            query.stop()
    finally:
        spark.conf.unset(ALLOWLIST_CHECK)
    assert_each_record_once_in_key_order(copied(kinesis, target), put)
