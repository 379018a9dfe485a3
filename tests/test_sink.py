# SPDX-License-Identifier: Apache-2.0
"""End to end: the sink. DataFrames and streams written with format("kinesis") into the local
Kinesis, read back with the source (or boto3), compared record by record."""

import json
import warnings
from pathlib import Path

import pytest
from pyspark.errors import PySparkException
from pyspark.sql import functions as F

from faults import Fault
from streaming import kinesis_reader, kinesis_writer, make_records, read_all, run_available_now, sink_metrics
from waiting import wait_for

MIB = 1024 * 1024


def keyed_frame(spark, records, partitions=2):
    return spark.createDataFrame(records, "partitionKey string, data binary").repartition(partitions)


# -- 1, 2, 5: batch round trip ----------------------------------------------------------------


def test_round_trip_batch_write_then_read_back_with_the_source(spark, kinesis, tmp_path):
    stream = kinesis.create_stream(shards=2)
    records = make_records(1000)

    kinesis_writer(keyed_frame(spark, records), kinesis, stream).save()

    run_available_now(kinesis_reader(spark, kinesis, stream), tmp_path / "sink", tmp_path / "chk")
    rows = spark.read.parquet(str(tmp_path / "sink")).collect()
    assert len(rows) == len(records), "every row once, none twice"
    assert sorted((r.partitionKey, bytes(r.data)) for r in rows) == sorted(records)
    assert {r.stream for r in rows} == {stream}
    assert len({r.shardId for r in rows}) == 2


def test_string_data_and_explicit_hash_keys_pick_the_shard(spark, kinesis):
    stream = kinesis.create_stream(shards=2)
    top = str(2**128 - 1)
    df = spark.createDataFrame(
        [("a", "first shard", "0"), ("b", "last shard", top), ("c", "by key", None)],
        "partitionKey string, data string, explicitHashKey string",
    )
    kinesis_writer(df, kinesis, stream).save()

    got = {key: (shard, data.decode()) for shard, key, data in read_all(kinesis, stream)}
    shards = sorted(s["ShardId"] for s in kinesis.client.list_shards(StreamName=stream)["Shards"])
    assert got["a"] == (shards[0], "first shard")
    assert got["b"] == (shards[-1], "last shard")
    assert got["c"][1] == "by key"


def test_records_are_batched_within_the_kinesis_limits(spark, kinesis):
    stream = kinesis.create_stream(shards=2)
    small = make_records(1200, "small")
    big = [(f"big-{i}", bytes([i]) * 1_000_000) for i in range(6)]  # 6 MB: two calls at most 5 MiB

    kinesis_writer(keyed_frame(spark, small, partitions=1), kinesis, stream).save()
    kinesis_writer(keyed_frame(spark, big, partitions=1), kinesis, stream).save()

    got = sorted((key, data) for _, key, data in read_all(kinesis, stream))
    assert got == sorted(small + big)


def test_each_row_goes_to_the_stream_its_stream_column_names(spark, kinesis):
    a, b = kinesis.create_stream(shards=1), kinesis.create_stream(shards=1)
    df = spark.createDataFrame(
        [(f"k{i}", f"v{i}", a if i % 3 else b) for i in range(30)], "partitionKey string, data string, stream string"
    )
    kinesis_writer(df, kinesis).save()

    assert sorted(k for _, k, _ in read_all(kinesis, a)) == sorted(f"k{i}" for i in range(30) if i % 3)
    assert sorted(k for _, k, _ in read_all(kinesis, b)) == sorted(f"k{i}" for i in range(30) if not i % 3)


def test_a_stream_read_with_the_source_can_be_written_as_it_is(spark, kinesis, tmp_path):
    source, copy = kinesis.create_stream(shards=2), kinesis.create_stream(shards=1)
    records = make_records(200)
    kinesis.put_records(source, records)

    # The source's rows carry stream, shardId, ...: with streamName set they go to `copy`.
    query = (
        kinesis_reader(spark, kinesis, source)
        .writeStream.format("kinesis")
        .option("streamName", copy)
        .option("endpoint", kinesis.endpoint)
        .option("region", kinesis.region)
        .option("checkpointLocation", str(tmp_path / "chk"))
        .trigger(availableNow=True)
        .start()
    )
    assert query.awaitTermination(240)
    assert query.exception() is None

    assert sorted((k, d) for _, k, d in read_all(kinesis, copy)) == sorted(records)
    metrics = sink_metrics(query)
    assert metrics["recordsWritten"] == 200 and metrics["failedRecords"] == 0
    assert metrics["bytesWritten"] == sum(len(k) + len(d) for k, d in records)


# -- 5: streaming with a checkpoint, stopped and restarted -------------------------------------


def _run_until(query, batches_with_data, timeout=120):
    def with_data():
        return sum(1 for p in query.recentProgress if p["numInputRows"] > 0)

    wait_for(lambda: with_data() >= batches_with_data, f"{batches_with_data} batches with data", query, timeout)


def test_streaming_from_the_rate_source_restarted_from_its_checkpoint_loses_nothing(spark, kinesis, tmp_path):
    stream = kinesis.create_stream(shards=2)
    checkpoint = tmp_path / "chk"

    def start():
        rows = (
            spark.readStream.format("rate")
            .option("rowsPerSecond", 40)
            .option("numPartitions", 2)
            .load()
            .select(F.col("value").cast("string").alias("partitionKey"), F.to_json(F.struct("value")).alias("data"))
        )
        return (
            rows.writeStream.format("kinesis")
            .option("streamName", stream)
            .option("endpoint", kinesis.endpoint)
            .option("region", kinesis.region)
            .option("checkpointLocation", str(checkpoint))
            .trigger(processingTime="1 second")
            .start()
        )

    progress = []
    for _ in range(2):  # run, stop (possibly in the middle of a batch), restart from the checkpoint
        query = start()
        _run_until(query, batches_with_data=3)
        query.stop()
        progress += query.recentProgress
    committed = sum(p["numInputRows"] for p in progress)
    last = [p for p in progress if p["numInputRows"] > 0][-1]
    assert int(last["sink"]["metrics"]["recordsWritten"]) == last["numInputRows"]
    assert int(last["sink"]["metrics"]["putRequests"]) >= 1

    run_available_now(kinesis_reader(spark, kinesis, stream), tmp_path / "back", tmp_path / "back-chk")
    rows = spark.read.parquet(str(tmp_path / "back")).collect()
    values = [int(r.partitionKey) for r in rows]
    for r in rows:
        assert json.loads(bytes(r.data)) == {"value": int(r.partitionKey)}
    distinct = set(values)
    # Rate rows are numbered from 0 and batches take them in order, so the committed batches
    # hold exactly 0 .. committed-1. Beyond that only a batch interrupted by the final stop().
    missing = set(range(committed)) - distinct
    assert not missing, f"{len(missing)} rows of committed batches are missing, e.g. {sorted(missing)[:5]}"
    uncommitted = len(distinct) - committed
    duplicates = len(values) - len(distinct)
    # Only a batch interrupted by stop() and re-run after the restart sends rows twice.
    largest_batch = max(p["numInputRows"] for p in progress)
    # Shown in pytest's warnings summary, so every run says how many duplicates it saw.
    warnings.warn(
        f"streaming restart: {committed} rows in committed batches, {len(values)} records read back, "
        f"{len(distinct)} distinct, {duplicates} duplicates, {uncommitted} rows of an interrupted "
        f"last batch (a re-run batch has at most {largest_batch} rows)",
        stacklevel=1,
    )
    assert 0 <= uncommitted <= largest_batch
    assert duplicates <= largest_batch


# -- 3: retries, throttling and failure -------------------------------------------------------


def _copy_through(spark, kinesis, endpoint, source, target, checkpoint, **options):
    writer = (
        kinesis_reader(spark, kinesis, source)
        .select("partitionKey", "data")
        .writeStream.format("kinesis")
        .option("streamName", target)
        .option("endpoint", endpoint)
        .option("region", kinesis.region)
        .option("checkpointLocation", str(checkpoint))
        .trigger(availableNow=True)
    )
    query = writer.options(**options).start()
    try:
        query.awaitTermination(240)
    except PySparkException:
        pass  # A failed query raises here; the tests look at query.exception().
    return query


def test_throttled_puts_are_retried_with_back_off_until_every_record_is_written(spark, kinesis, fault_proxy, tmp_path):
    source, target = kinesis.create_stream(shards=1), kinesis.create_stream(shards=1)
    records = make_records(50)
    kinesis.put_records(source, records)

    # The first 6 PutRecords calls are refused: more than the AWS SDK retries one call by itself
    # (one call at a time: with four, lanes by key, the SDK's retries of each would absorb them).
    fault_proxy.add(Fault.error("PutRecords", "ProvisionedThroughputExceededException", first=6))
    query = _copy_through(
        spark,
        kinesis,
        fault_proxy.endpoint,
        source,
        target,
        tmp_path / "chk",
        putRetryBackoff="50ms",
        maxPutRetryBackoff="200ms",
        maxInFlightPuts="1",
    )
    assert query.exception() is None, query.exception()
    assert fault_proxy.injected[("PutRecords", "ProvisionedThroughputExceededException")] == 6

    assert sorted((k, d) for _, k, d in read_all(kinesis, target)) == sorted(records), "all, none twice"
    metrics = sink_metrics(query)
    assert metrics["recordsWritten"] == 50
    assert metrics["throttledRecords"] >= 50 and metrics["putRetries"] >= 50
    assert metrics["failedRecords"] == 0


def test_records_still_throttled_after_max_put_retries_fail_the_query_with_count_and_code(
    spark, kinesis, fault_proxy, tmp_path
):
    source, target = kinesis.create_stream(shards=1), kinesis.create_stream(shards=1)
    kinesis.put_records(source, make_records(20))

    fault_proxy.add(Fault.error("PutRecords", "ProvisionedThroughputExceededException", share=1))
    query = _copy_through(
        spark,
        kinesis,
        fault_proxy.endpoint,
        source,
        target,
        tmp_path / "chk",
        maxPutRetries="1",
        putRetryBackoff="10ms",
        maxPutRetryBackoff="10ms",
    )
    error = str(query.exception())
    assert "KINESIS_SINK_PUT_FAILED" in error
    assert "20 records could not be written" in error
    assert "ProvisionedThroughputExceededException (20)" in error
    assert "after up to 2 attempts" in error
    assert read_all(kinesis, target) == []


def test_a_batch_write_without_mode_appends_as_with_kafka(spark, kinesis, stream):
    records = make_records(50)
    (
        keyed_frame(spark, records)
        .write.format("kinesis")
        .option("endpoint", kinesis.endpoint)
        .option("region", kinesis.region)
        .option("streamName", stream)
        .save()
    )
    assert sorted((key, data) for _, key, data in read_all(kinesis, stream)) == sorted(records)


def test_a_batch_write_in_mode_overwrite_or_ignore_is_refused_naming_the_mode(spark, kinesis, stream):
    df = keyed_frame(spark, make_records(2))
    for mode in ["ignore", "overwrite"]:
        expected = rf"KINESIS_SINK_SAVE_MODE_UNSUPPORTED.*save mode {mode.capitalize()}"
        with pytest.raises(PySparkException, match=expected):
            kinesis_writer(df, kinesis, stream).mode(mode).save()
    assert read_all(kinesis, stream) == []


def test_writing_to_a_stream_that_does_not_exist_fails_at_once(spark, kinesis):
    with pytest.raises(Exception, match="KINESIS_STREAM_NOT_FOUND|no-such-stream-sink.*was not found"):
        kinesis_writer(keyed_frame(spark, make_records(3)), kinesis, "no-such-stream-sink").save()


# -- 2: errors before anything is sent --------------------------------------------------------


def test_a_missing_column_fails_at_save_naming_it(spark, kinesis, stream):
    df = spark.createDataFrame([(b"x",)], "data binary")
    with pytest.raises(PySparkException, match="KINESIS_SINK_MISSING_COLUMN.*'partitionKey'"):
        kinesis_writer(df, kinesis, stream).save()


def test_a_mistyped_column_fails_at_save_naming_it_and_its_type(spark, kinesis, stream):
    df = spark.createDataFrame([(1, b"x")], "partitionKey int, data binary")
    with pytest.raises(PySparkException, match="Column 'partitionKey'.*type INT.*must be STRING"):
        kinesis_writer(df, kinesis, stream).save()


def test_a_streaming_write_with_a_missing_column_fails_at_start(spark, kinesis, stream, tmp_path):
    rows = spark.readStream.format("rate").load().selectExpr("CAST(value AS STRING) AS partitionKey")
    with pytest.raises(PySparkException, match="no column 'data'"):
        (
            rows.writeStream.format("kinesis")
            .option("streamName", stream)
            .option("endpoint", kinesis.endpoint)
            .option("region", kinesis.region)
            .option("checkpointLocation", str(tmp_path))
            .start()
        )
    assert spark.streams.active == []


@pytest.mark.parametrize(
    "bad_row, expected",
    [
        (("", b"no key"), "'partitionKey' is empty.*1 to 256 characters"),
        (("big", b"x" * MIB), "KINESIS_SINK_RECORD_TOO_LARGE.*1048579 bytes.*limit of 1048576 bytes"),
    ],
)
def test_a_bad_row_fails_the_write_before_its_task_sends_it_or_anything_after_it(
    spark, kinesis, stream, bad_row, expected
):
    before, after = make_records(10), make_records(10)
    with pytest.raises(Exception, match=expected):
        kinesis_writer(keyed_frame(spark, before + [bad_row] + after, partitions=1), kinesis, stream).save()
    # The rows before it may have been sent meanwhile (a row over 1 MiB waits for its stream's
    # limit, DescribeStreamSummary, while the earlier rows' linger runs out).
    sent = {key for _, key, _ in read_all(kinesis, stream)}
    assert sent <= {key for key, _ in before}, "the bad row, or a row after it, was sent"


@pytest.mark.parametrize(
    "option, value, expected",
    [
        ("maxRecordsPerPut", "501", "from 1 to 500"),
        ("MAXBYTESPERPUT", "6mb", "at most 5mb"),
        ("initialPosition", "latest", "applies only to reading"),
        ("maxPutRetrys", "3", "Did you mean 'maxPutRetries'"),
    ],
)
def test_a_bad_sink_option_fails_at_save(spark, kinesis, stream, option, value, expected):
    with pytest.raises(PySparkException, match=expected):
        kinesis_writer(keyed_frame(spark, make_records(1)), kinesis, stream, **{option: value}).save()


def test_a_sink_option_on_a_read_fails_at_load(spark, kinesis):
    with pytest.raises(PySparkException, match="'maxPutRetries' applies only to writing"):
        kinesis_reader(spark, kinesis, "some-stream", maxPutRetries="3")


# -- 6 and docs: the Python builders and docs/options.md follow the JVM registry -------------


def test_the_python_sink_builder_writes(spark, kinesis, stream):
    from pyspark_kinesis import KinesisSinkOptions

    opts = (
        KinesisSinkOptions()
        .stream_name(stream)
        .endpoint(kinesis.endpoint)
        .region(kinesis.region)
        .max_records_per_put(7)
        .max_in_flight_puts(2)
        .max_put_retries(3)
        .put_retry_backoff("20ms")
    )
    records = make_records(30)
    opts.apply(keyed_frame(spark, records).write.format("kinesis").mode("append")).save()
    assert sorted((k, d) for _, k, d in read_all(kinesis, stream)) == sorted(records)


def test_python_sink_option_names_match_the_jvm_registry(spark):
    from pyspark_kinesis import SINK_OPTION_NAMES, jvm_class

    jvm_names = list(jvm_class(spark, "io.github.sparkkinesis.options.KinesisOptions").sinkNames())
    assert sorted(SINK_OPTION_NAMES) == sorted(jvm_names)


def test_the_docs_document_every_sink_option(spark):
    from pyspark_kinesis import jvm_class

    docs = Path(__file__).resolve().parent.parent / "docs"
    section = (docs / "options.md").read_text().split("## Sink options", 1)[1].split("\n## ", 1)[0]
    documented = {
        name.strip() for line in section.splitlines() if line.startswith("| ") for name in line.split("|")[1].split(",")
    }
    jvm_names = set(jvm_class(spark, "io.github.sparkkinesis.options.KinesisOptions").sinkNames())
    assert jvm_names <= documented, f"sink options missing from docs/options.md: {sorted(jvm_names - documented)}"
    assert "at-least-once" in (docs / "writing.md").read_text()
