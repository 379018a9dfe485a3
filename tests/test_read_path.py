# SPDX-License-Identifier: Apache-2.0
"""End to end: records put with boto3 into the local Kinesis, read by PySpark through
format("kinesis") from the installed wheel, checked column by column."""

import json
import time
from pathlib import Path

import pytest
from pyspark.errors import PySparkException, StreamingQueryException

from streaming import kinesis_reader, make_records, run_available_now
from waiting import settle, wait_for

COLUMNS = [
    "partitionKey",
    "data",
    "stream",
    "shardId",
    "sequenceNumber",
    "approximateArrivalTimestamp",
    "subSequenceNumber",
]


def test_every_record_arrives_once_with_its_columns(spark, kinesis, tmp_path):
    stream = kinesis.create_stream(shards=3)
    records = make_records(300)
    before = time.time()
    placed = kinesis.put_records(stream, records)
    after = time.time()

    run_available_now(kinesis_reader(spark, kinesis, stream), tmp_path / "sink", tmp_path / "checkpoint")

    rows = spark.read.parquet(str(tmp_path / "sink")).collect()
    assert spark.read.parquet(str(tmp_path / "sink")).columns == COLUMNS
    assert len(rows) == len(records)
    got = {row.partitionKey: row for row in rows}
    assert len(got) == len(records), "a record arrived twice"
    for (key, data), (shard, seq) in zip(records, placed):
        row = got[key]
        assert bytes(row.data) == data
        assert (row.stream, row.shardId, row.sequenceNumber) == (stream, shard, seq)
        assert before - 5 <= row.approximateArrivalTimestamp.timestamp() <= after + 5
        assert row.subSequenceNumber == 0  # not a KPL aggregate
    assert len({row.shardId for row in rows}) == 3, "every shard is read"


def test_restart_from_checkpoint_continues_where_it_left_off(spark, kinesis, tmp_path):
    stream = kinesis.create_stream(shards=2)
    sink, checkpoint = tmp_path / "sink", tmp_path / "checkpoint"
    first, second = make_records(150, "first"), make_records(150, "second")

    kinesis.put_records(stream, first)
    run_available_now(kinesis_reader(spark, kinesis, stream), sink, checkpoint)
    assert spark.read.parquet(str(sink)).count() == 150

    kinesis.put_records(stream, second)
    run_available_now(kinesis_reader(spark, kinesis, stream), sink, checkpoint)

    keys = [row.partitionKey for row in spark.read.parquet(str(sink)).select("partitionKey").collect()]
    assert sorted(keys) == sorted(k for k, _ in first + second), "nothing lost or repeated across the restart"


def test_checkpoint_offsets_name_the_last_sequence_number_of_each_shard(spark, kinesis, tmp_path):
    stream = kinesis.create_stream(shards=2)
    placed = kinesis.put_records(stream, make_records(40))
    checkpoint = tmp_path / "checkpoint"

    run_available_now(kinesis_reader(spark, kinesis, stream), tmp_path / "sink", checkpoint)

    last_batch = max((checkpoint / "offsets").glob("[0-9]*"), key=lambda p: int(p.name))
    offset = json.loads(last_batch.read_text().strip().splitlines()[-1])
    assert offset["version"] == 1
    expected = {}
    for shard, seq in placed:
        expected[shard] = max(expected.get(shard, 0), int(seq))
    assert {shard: int(pos["seq"]) for shard, pos in offset["shards"][stream].items()} == expected
    assert all(pos["type"] == "after" for pos in offset["shards"][stream].values())


def test_latest_reads_only_what_arrives_after_the_query_starts(spark, kinesis, tmp_path):
    stream = kinesis.create_stream(shards=2)
    kinesis.put_records(stream, make_records(30, "old"))
    checkpoint = tmp_path / "checkpoint"
    query = (
        kinesis_reader(spark, kinesis, stream, initialPosition="latest")
        .writeStream.format("memory")
        .queryName("latest_test")
        .option("checkpointLocation", str(checkpoint))
        .trigger(processingTime="1 second")
        .start()
    )
    try:
        # The initial offset ("latest" = the query's start time) is kept in the checkpoint.
        initial = checkpoint / "sources" / "0" / "kinesis-initial-offset.json"
        wait_for(initial.exists, "the query's initial offset in its checkpoint", query, timeout=120)
        new = make_records(30, "new")
        kinesis.put_records(stream, new)
        wait_for(lambda: spark.table("latest_test").count() >= len(new), "the new records", query, timeout=120)
        settle(query)  # anything old would have come by now
        keys = sorted(r.partitionKey for r in spark.table("latest_test").collect())
        assert keys == sorted(k for k, _ in new)
    finally:
        query.stop()


def test_several_streams_in_one_query(spark, kinesis, tmp_path):
    a, b = kinesis.create_stream(shards=1), kinesis.create_stream(shards=2)
    kinesis.put_records(a, make_records(20, "a"))
    kinesis.put_records(b, make_records(30, "b"))

    run_available_now(kinesis_reader(spark, kinesis, f"{a}, {b}"), tmp_path / "sink", tmp_path / "checkpoint")

    written = spark.read.parquet(str(tmp_path / "sink"))
    counts = {r.stream: r["count"] for r in written.groupBy("stream").count().collect()}
    assert counts == {a: 20, b: 30}


@pytest.mark.parametrize(
    "option, value, expected",
    [
        ("maxFetchRate", "2.5", "maxFetchRate"),
        ("MINFETCHPERIOD", "100ms", "for option 'MINFETCHPERIOD'"),
        ("initialPosition", "yesterday", "initialPosition"),
        ("consumerName", "app", "applies to enhanced fan-out only"),
        ("streamNme", "x", "Did you mean 'streamName'"),
    ],
)
def test_a_bad_option_fails_when_the_dataframe_is_defined(spark, kinesis, option, value, expected):
    with pytest.raises(PySparkException) as failure:
        kinesis_reader(spark, kinesis, "some-stream", **{option: value})
    assert expected in str(failure.value)


def test_a_missing_stream_name_is_a_clear_error(spark):
    with pytest.raises(PySparkException, match="Option 'streamName' is required"):
        spark.readStream.format("kinesis").option("region", "us-east-1").load()


def test_a_stream_that_does_not_exist_fails_the_query_with_its_name(spark, kinesis, tmp_path):
    df = kinesis_reader(spark, kinesis, "no-such-stream-e2e")
    with pytest.raises(StreamingQueryException, match="no-such-stream-e2e.*was not found|KINESIS_STREAM_NOT_FOUND"):
        run_available_now(df, tmp_path / "sink", tmp_path / "checkpoint", timeout=60)


def test_python_option_names_match_the_jvm_registry(spark):
    from pyspark_kinesis import SOURCE_OPTION_NAMES, jvm_class

    jvm_names = list(jvm_class(spark, "io.github.sparkkinesis.options.KinesisOptions").names())
    assert sorted(SOURCE_OPTION_NAMES) == sorted(jvm_names)


def test_the_wheel_carries_the_jar_the_session_uses(spark):
    import pyspark_kinesis

    jar = Path(pyspark_kinesis.jar_path())
    assert jar.is_file() and "site-packages" in str(jar)
    assert str(jar) in spark.conf.get("spark.jars")


def test_the_options_page_documents_every_option(spark):
    from pyspark_kinesis import jvm_class

    page = (Path(__file__).resolve().parent.parent / "docs" / "options.md").read_text()
    documented = {line.split("|")[1].strip() for line in page.splitlines() if line.startswith("| ")}
    jvm_names = set(jvm_class(spark, "io.github.sparkkinesis.options.KinesisOptions").names())
    assert jvm_names <= documented, f"options missing from docs/options.md: {sorted(jvm_names - documented)}"
