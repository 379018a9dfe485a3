# SPDX-License-Identifier: Apache-2.0
"""End to end: bad inputs. Every option of the source and the sink given missing, empty,
malformed and out of range, and the runtime faults a user meets (a stream that is not there or
goes away, a checkpoint that is not ours, records at the size limits, an endpoint that is not
Kinesis). Each must fail with an error that names what is wrong and what is allowed: an option
error at load()/save()/start(), before any query runs, as PySpark's IllegalArgumentException or
AnalysisException; a runtime fault as the connector's own error, never an unrelated Java
exception or a hang."""

import http.server
import json
import threading
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import resources

import pytest
from py4j.protocol import Py4JJavaError
from pyspark.errors import AnalysisException, IllegalArgumentException, PySparkException

from kinesis_local import free_ports
from streaming import kinesis_reader, make_records, read_all
from waiting import wait_for

MIB = 1024 * 1024
OPTION_ERRORS = (IllegalArgumentException, AnalysisException)


# -- the option table -------------------------------------------------------------------------


@dataclass
class Row:
    """One bad value of one option; `expected` must appear in the error (the allowed values).
    `extra` are options the row needs besides the defaults (e.g. consumerMode efo)."""

    option: str
    value: str
    expected: str
    extra: dict = field(default_factory=dict)

    def id(self):
        return f"{self.option}={self.value[:24]!r}" + (f"+{sorted(self.extra)}" if self.extra else "")


# The option registry as the installed package carries it (generated from KinesisOptions.scala).
REGISTRY = json.loads(resources.files("pyspark_kinesis").joinpath("_registry.json").read_text("utf-8"))["options"]
EFO = {"consumerMode": "efo"}
ROLE = {"roleArn": "arn:aws:iam::123456789012:role/reader"}
INT_1_10000 = "an integer from 1 to 10000"
AT_LEAST_1 = "an integer of at least 1"
SIZE = "a size such as 512kb, 10mb or 2gb, above 0"
URL = "a URL such as"
REGION = "an AWS region such as us-east-1"

# Options the source and the sink share (how to reach AWS): run for both.
CONNECTION_ROWS = [
    Row("region", "mars-north-1", REGION),
    Row("region", "us-east-1x", "did you mean us-east-1?"),
    Row("endpoint", "localhost:4567", URL),
    Row("endpoint", "ftp://127.0.0.1/", URL),
    Row("endpoint", "http://", URL),
    Row("awsAccessKey", "AKIAIOSFODNN7EXAMPLE", "give both or neither"),
    Row("awsSecretKey", "only-the-secret", "give both or neither"),
    Row("awsSessionToken", "only-a-token", "needs awsAccessKey and awsSecretKey"),
    Row("roleArn", "reader", "an IAM role ARN such as"),
    Row("roleArn", "arn:aws:iam::12:role/reader", "an IAM role ARN such as"),
    Row("roleExternalId", "ext-id", "applies only when a role is assumed"),
    Row("roleExternalId", "x", "2 to 1224 characters", ROLE),
    Row("roleSessionName", "etl", "applies only when a role is assumed"),
    Row("roleSessionName", "has space", "2 to 64 characters", ROLE),
    Row("roleSessionName", "s" * 65, "2 to 64 characters", ROLE),
    Row("stsEndpoint", "http://127.0.0.1:1", "applies only when a role is assumed"),
    Row("stsEndpoint", "sts.local", URL, ROLE),
    Row("profile", "my profile", "the name of a profile"),
    Row(
        "profile",
        "reader",
        "different sources of credentials",
        {"awsAccessKey": "AKIAIOSFODNN7EXAMPLE", "awsSecretKey": "s"},
    ),
    Row("awsCredentialsProvider", "com.example.MissingProvider", "was not found"),
    Row("awsCredentialsProvider", "java.lang.String", "does not implement"),
    Row("awsCredentialsProviderSecret", "param", "add awsCredentialsProvider"),
    Row("proxyHost", "http://proxy:3128", "without a scheme or a port", {"proxyPort": "3128"}),
    Row("proxyHost", "proxy", "needs its port"),
    Row("proxyPort", "3128", "add proxyHost"),
    Row("proxyUsername", "reader", "add proxyHost"),
    Row("proxyUsername", "reader", "give both or neither", {"proxyHost": "proxy", "proxyPort": "3128"}),
    Row("proxyPassword", "pw", "add proxyHost"),
    Row("nonProxyHosts", "*.local", "add proxyHost"),
    Row("nonProxyHosts", "a b", "is not one", {"proxyHost": "proxy", "proxyPort": "3128"}),
]


def rows_from_registry(usage):
    """Bad values derived from each option's kind and bounds in the registry (below the minimum,
    above the maximum, of the wrong type, not an allowed word), each expected to fail with the
    allowed values as the registry words them. EFO-only options get consumerMode efo."""
    rows = []
    for facts in REGISTRY:
        if facts["usage"] not in (usage, "both") or "allowedText" not in facts:
            continue
        rows += [
            Row(facts["name"], value, facts["allowedText"], {} if "polling" in facts["modes"] else EFO)
            for value in bad_values(facts)
        ]
    return rows


def bad_values(facts):
    low, high, kind = facts.get("min"), facts.get("max"), facts["type"]
    if kind == "int":
        return [str(low - 1), str(high + 1), "1.5", "many"]
    if kind == "long":
        return [str(low - 1), "big"]
    if kind == "double":
        return ["0", str(high * 1.25), "fast"]
    if kind == "duration":
        return [f"{low - 1}ms", f"{high + 1}ms", "soon"]
    if kind == "size":
        return ["0", "lots"] + ([f"{high + 1}b"] if high else [])
    if kind == "bool":
        return ["yes"]
    return [f"not-{facts['allowed'][0]}"]  # enum


SOURCE_ROWS = (
    CONNECTION_ROWS
    + rows_from_registry("read")
    + [
        Row("consumerARN", "arn:aws:kinesis:us-east-1:123456789012:stream/bad-inputs", "is not one", EFO),
        Row(
            "consumerARN",
            "arn:aws:kinesis:us-east-1:123456789012:stream/other/consumer/c:1",
            "which is not read here",
            EFO,
        ),
        Row(
            "consumerARN",
            "arn:aws:kinesis:us-east-1:123456789012:stream/bad-inputs/consumer/c:1",
            "does not apply",
            {**EFO, "consumerName": "mine"},
        ),
        Row("streamName", "", "is required"),
        Row("streamName", " , ", "stream names of 1 to 128"),
        Row("streamName", "has space", "stream names of 1 to 128"),
        Row("streamName", "s" * 129, "stream names of 1 to 128"),
        Row("streamName", "a,b,a", "each stream named once"),
        Row("streamARN", "orders", "stream ARNs such as arn:aws:kinesis:us-east-1:123456789012:stream/orders"),
        Row(
            "streamARN", "arn:aws:kinesis:us-east-1:1234:stream/a", "('arn:aws:kinesis:us-east-1:1234:stream/a' is not"
        ),
        Row(
            "streamARN",
            "arn:aws:kinesis:us-east-1:123456789012:stream/a,arn:aws:kinesis:eu-west-1:123456789012:stream/b",
            "streams of one region",
        ),
        Row("initialPosition", "yesterday", "latest, trim_horizon, earliest, or at_timestamp"),
        Row("initialPosition", "at_timestamp", "at_timestamp needs the JSON form"),
        Row("initialPosition", '{"at_timestamp": "soon"}', "does not match the format"),
        Row("initialPosition", '{"at_timestamp": "2020-01-01", "format": "qqq"}', "not a valid date format"),
        Row("initialPosition", '{"version": 1}', 'no "shards" object'),
        Row("initialPosition", '{"version": 7, "shards": {}}', "version 7"),
        Row("endingPosition", "earliest", "latest, or per-shard positions as offset JSON"),
        Row(
            "endingPosition",
            '{"version": 1, "shards": {"s": {"shardId-0": {"type": "after", "seq": "x"}}}}',
            'no decimal "seq"',
        ),
        Row("endingPosition", "{not json", "it is not JSON"),
        Row(
            "endingPosition",
            '{"version": 1, "shards": {"typo": {"shardId-000000000000": {"type": "at", "seq": "1"}}}}',
            "per-shard positions of the streams read (streamName 'bad-inputs'); these name only 'typo'",
        ),
        Row(
            "initialPosition",
            '{"version": 1, "shards": {"typo": {"shardId-000000000000": {"type": "at", "seq": "1"}}}}',
            "per-shard positions of the streams read (streamName 'bad-inputs'); these name only 'typo'",
        ),
        Row("streamColumnName", "data", "other than those of the other columns"),
        Row("streamColumnName", "shardid", "other than those of the other columns"),
        Row("streamColumnName", "stream name", "a column name of letters, digits and '_'"),
        Row("maxRecordsPerFetch", "99999999999", INT_1_10000),
        Row("maxFetchRate", "NaN", "above 0 and at most 2.0"),
        Row("minFetchPeriod", "-1s", "from 200ms to 3600000ms"),
        Row("maxFetchDuration", "10 parsecs", "a duration such as"),
        Row("maxFetchDuration", "9999999999999d", "from 1ms to 3600000ms"),
        Row("fetchBufferSize", "-5mb", SIZE),
        Row("fetchBufferSize", "99999999999pb", SIZE),
        Row("shardFetchInterval", "2d", "from 1ms to 3600000ms"),
        Row("coalesceThresholdBlockSize", "10 MB", AT_LEAST_1),
        Row("coalesceBinSize", "-1", AT_LEAST_1),
        Row("coalesceBinSize", "99999999999999999999", AT_LEAST_1),
        Row("requireConsumerDeregistration", "true", "applies to enhanced fan-out only"),
        Row("consumerName", "app", "applies to enhanced fan-out only"),
        Row("consumerName", "has space", "is not a valid name", EFO),
        Row("consumerName", "a,b", "got 2 names", EFO),
        Row("consumerName", "a,", "a name is empty", EFO),
        Row("consumerName", "c" * 129, "is not a valid name", EFO),
        Row("consumerNamePrefix", "app_", "applies to enhanced fan-out only"),
        Row("consumerNamePrefix", "p" * 100, "leaves room for the query id", EFO),
        Row("consumerNamePrefix", "bad prefix!", "leaves room for the query id", EFO),
        Row("consumerRefreshInterval", "60s", "applies to enhanced fan-out only"),
        Row("maxPutRetries", "3", "applies only to writing"),
        Row("streamNme", "x", "Did you mean 'streamName'"),
    ]
)

SINK_ROWS = (
    CONNECTION_ROWS
    + rows_from_registry("write")
    + [
        Row("streamName", "a,b", "one stream name of 1 to 128"),
        Row("streamName", "has space", "one stream name of 1 to 128"),
        Row("maxBytesPerPut", "6mb", "at most 5mb"),
        Row("maxPutRetryBackoff", "1s", "must be at least putRetryBackoff", {"putRetryBackoff": "2s"}),
        Row("initialPosition", "latest", "applies only to reading"),
        Row("maxPutRetrys", "3", "Did you mean 'maxPutRetries'"),
    ]
)

# An empty value of these means "not given" (the default region, endpoint, credentials), so
# that options filled from an unset environment variable behave as if left out. Every other
# option refuses an empty value.
EMPTY_MEANS_NOT_GIVEN = {o["name"] for o in REGISTRY if o["emptyMeansNotGiven"]}


def registry(spark):
    from pyspark_kinesis import jvm_class

    options = jvm_class(spark, "io.github.sparkkinesis.options.KinesisOptions")
    return list(options.names()), list(options.sinkNames())


def without(options, name):
    return {k: v for k, v in options.items() if k.lower() != name.lower()}


def source_options(kinesis, row_option=None, **extra):
    base = {"streamName": "bad-inputs", "endpoint": kinesis.endpoint, "region": kinesis.region}
    if row_option:
        base = without(base, row_option)
    return {**base, **extra}


def load_source(spark, options, stream=True):
    reader = spark.readStream if stream else spark.read
    return reader.format("kinesis").options(**options).load()


def save_sink(spark, options, df=None):
    df = df if df is not None else spark.createDataFrame([("k", b"v")], "partitionKey string, data binary")
    df.write.format("kinesis").mode("append").options(**options).save()


def assert_option_error(failure, typed, expected, errors=OPTION_ERRORS):
    message = str(failure.value)
    assert isinstance(failure.value, errors), f"{type(failure.value).__name__}: {message[:300]}"
    assert f"'{typed}'" in message, f"the error does not name the option '{typed}': {message}"
    assert expected in message, f"the error does not say {expected!r}: {message}"
    assert "\tat " not in message and "NullPointerException" not in message, message


# -- options: one row at a time ------------------------------------------------------------------


@pytest.mark.parametrize("row", SOURCE_ROWS, ids=Row.id)
def test_a_bad_source_option_fails_at_load_naming_it_and_what_is_allowed(spark, kinesis, row):
    options = source_options(kinesis, row.option, **{**row.extra, row.option: row.value})
    for stream in (True, False):
        with pytest.raises(PySparkException) as failure:
            load_source(spark, options, stream=stream)
        assert_option_error(failure, row.option, row.expected)


@pytest.mark.parametrize("row", SINK_ROWS, ids=Row.id)
def test_a_bad_sink_option_fails_at_save_naming_it_and_what_is_allowed(spark, kinesis, row):
    options = source_options(kinesis, row.option, **{**row.extra, row.option: row.value})
    with pytest.raises(PySparkException) as failure:
        save_sink(spark, options)
    assert_option_error(failure, row.option, row.expected)


@pytest.mark.parametrize("row", SINK_ROWS, ids=Row.id)
def test_a_bad_sink_option_fails_a_streaming_write_at_start(spark, kinesis, tmp_path, row):
    rows = (
        spark.readStream.format("rate")
        .load()
        .selectExpr("CAST(value AS STRING) AS partitionKey", "CAST(value AS STRING) AS data")
    )
    options = source_options(kinesis, row.option, **{**row.extra, row.option: row.value})
    with pytest.raises(PySparkException) as failure:
        (rows.writeStream.format("kinesis").options(**options).option("checkpointLocation", str(tmp_path)).start())
    assert_option_error(failure, row.option, row.expected)
    assert spark.streams.active == []


def test_a_missing_stream_name_fails_a_read_at_load(spark, kinesis):
    for stream in (True, False):
        with pytest.raises(PySparkException) as failure:
            load_source(spark, without(source_options(kinesis), "streamName"), stream=stream)
        assert_option_error(failure, "streamName", "is required: give one stream name or a comma-separated list")


@pytest.mark.parametrize("row", CONNECTION_ROWS, ids=Row.id)
def test_a_bad_connection_option_fails_the_consumer_manager_at_create(spark, kinesis, row):
    from pyspark_kinesis import AWSKinesisConsumerManager, KinesisConsumerArgumentError

    options = without({"endpoint": kinesis.endpoint, "region": kinesis.region}, row.option)
    builder = AWSKinesisConsumerManager.newManager(spark).options(**options, **row.extra, **{row.option: row.value})
    with pytest.raises(KinesisConsumerArgumentError) as failure:
        builder.create()
    assert_option_error(failure, row.option, row.expected, errors=KinesisConsumerArgumentError)


def test_a_missing_sink_stream_name_needs_a_stream_column(spark, kinesis):
    with pytest.raises(PySparkException) as failure:
        save_sink(spark, without(source_options(kinesis), "streamName"))
    assert isinstance(failure.value, OPTION_ERRORS)
    assert "no column 'stream'" in str(failure.value) and "streamName" in str(failure.value)


# -- options: generated from the registry, so a new option cannot be forgotten ----------------------


def test_every_registered_option_has_rows_for_the_source_and_the_sink(spark):
    source, sink = registry(spark)
    missing_source = set(source) - {r.option for r in SOURCE_ROWS}
    missing_sink = set(sink) - {r.option for r in SINK_ROWS}
    assert not missing_source, f"add SOURCE_ROWS for {sorted(missing_source)}"
    assert not missing_sink, f"add SINK_ROWS for {sorted(missing_sink)}"


def test_an_empty_value_of_any_option_is_refused_naming_it_as_typed(spark, kinesis):
    """Every option, typed in upper case: an empty value fails naming the option as typed,
    unless it is one whose empty value means not given (then it is accepted)."""
    source, sink = registry(spark)
    problems = []
    for use, names in (("source", source), ("sink", sink)):
        for name in names:
            typed = name.upper()
            options = source_options(kinesis, name, **{typed: ""})
            try:
                load_source(spark, options) if use == "source" else save_sink(spark, options, empty_frame(spark))
            except PySparkException as e:
                if name in EMPTY_MEANS_NOT_GIVEN:
                    problems.append(f"{use} {name}: an empty value should mean not given, got {e}")
                elif not isinstance(e, OPTION_ERRORS) or f"'{typed}'" not in str(e):
                    problems.append(f"{use} {typed}: {type(e).__name__}: {str(e)[:300]}")
            else:
                if name not in EMPTY_MEANS_NOT_GIVEN:
                    problems.append(f"{use} {typed}: an empty value was accepted")
    assert not problems, "\n".join(problems)


def test_a_malformed_value_of_any_option_is_refused_naming_it_as_typed(spark, kinesis):
    """Every option, typed in mixed case, given alone with a value that is wrong for it."""
    source, sink = registry(spark)
    problems = []
    for use, names in (("source", source), ("sink", sink)):
        for name in names:
            typed = name[0].upper() + name[1:]
            options = source_options(kinesis, name, **{typed: "?? not valid ??"})
            try:
                load_source(spark, options) if use == "source" else save_sink(spark, options, empty_frame(spark))
            except PySparkException as e:
                if not isinstance(e, OPTION_ERRORS) or f"'{typed}'" not in str(e):
                    problems.append(f"{use} {typed}: {type(e).__name__}: {str(e)[:300]}")
            else:
                problems.append(f"{use} {typed}: '?? not valid ??' was accepted")
    assert not problems, "\n".join(problems)


def empty_frame(spark):
    return spark.createDataFrame([], "partitionKey string, data binary")


# -- runtime: streams that are not there ---------------------------------------------------------


def java_message(error):
    """The connector's message from whatever PySpark raised: a PySpark error's text, or, for a
    Java error PySpark does not convert, the Java exception's own message (it must be ours)."""
    if isinstance(error, Py4JJavaError):
        java = error.java_exception
        assert java.getClass().getName().startswith("io.github.sparkkinesis."), str(error)[:2000]
        return str(java.getMessage())
    return str(error)


@contextmanager
def bounded(seconds, what):
    """Fails when the block runs longer than `seconds`. A watchdog cancels the session's Spark
    jobs once it overstays, so a block stuck in a job returns (and fails) instead of hanging."""
    done = threading.Event()
    overstayed = []

    def watchdog():
        if not done.wait(seconds):
            overstayed.append(True)
            from pyspark import SparkContext

            active = SparkContext._active_spark_context
            assert active is not None
            active.cancelAllJobs()

    threading.Thread(target=watchdog, daemon=True).start()
    start = time.monotonic()
    try:
        yield
    finally:
        done.set()
    assert not overstayed, f"{what} took {time.monotonic() - start:.0f}s, over {seconds}s"


def run_stream(df, tmp_path, timeout=120):
    """Runs an AvailableNow query to its end; returns its exception or None."""
    query = (
        df.writeStream.format("noop")
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .trigger(availableNow=True)
        .start()
    )
    try:
        finished = query.awaitTermination(timeout)
    except PySparkException as e:
        return e
    if not finished:
        query.stop()
        pytest.fail(f"the query did not end within {timeout}s")
    return query.exception()


def test_a_stream_that_does_not_exist_fails_a_stream_read_naming_it(spark, kinesis, tmp_path):
    name = f"no-such-{uuid.uuid4().hex[:8]}"
    error = run_stream(kinesis_reader(spark, kinesis, name), tmp_path)
    assert error is not None
    assert f"[KINESIS_STREAM_NOT_FOUND] Kinesis stream '{name}' was not found" in str(error)


def test_a_stream_that_does_not_exist_fails_a_batch_read_naming_it(spark, kinesis):
    name = f"no-such-{uuid.uuid4().hex[:8]}"
    with bounded(120, "a batch read of a missing stream"), pytest.raises(Exception) as failure:
        load_source(spark, source_options(kinesis, streamName=name), stream=False).count()
    assert f"[KINESIS_STREAM_NOT_FOUND] Kinesis stream '{name}' was not found" in java_message(failure.value)


def test_a_stream_that_does_not_exist_fails_a_write_naming_it(spark, kinesis):
    name = f"no-such-{uuid.uuid4().hex[:8]}"
    with bounded(120, "a write to a missing stream"), pytest.raises(Exception) as failure:
        save_sink(spark, source_options(kinesis, streamName=name))
    assert f"[KINESIS_STREAM_NOT_FOUND] Kinesis stream '{name}' was not found" in java_message(failure.value)


@pytest.mark.slow
def test_a_stream_deleted_while_the_query_runs_stops_it_naming_the_stream(spark, kinesis, tmp_path):
    name = kinesis.create_stream(shards=1)
    kinesis.put_records(name, make_records(5))
    query = (
        kinesis_reader(spark, kinesis, name)
        .writeStream.format("noop")
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .trigger(processingTime="1 second")
        .start()
    )
    try:
        wait_for(lambda: any(p["numInputRows"] for p in query.recentProgress), "a batch with rows", query, 120)
        kinesis.delete_stream(name)
        try:
            ended = query.awaitTermination(120)
        except PySparkException as e:
            ended, error = True, e
        else:
            error = query.exception()
        assert ended, "the query went on for 120s after its stream was deleted"
    finally:
        query.stop()
    assert error is not None
    assert f"Kinesis stream '{name}' was not found" in str(error)


# -- runtime: a checkpoint that cannot be ours ---------------------------------------------------


def offset_file(checkpoint, batch=0):
    return checkpoint / "offsets" / str(batch)


def replace_source_offset(checkpoint, text):
    """Replaces the source's offset in the offset log (line 3: version, metadata, offset)."""
    path = offset_file(checkpoint)
    lines = path.read_text().split("\n")
    lines[2] = text
    path.write_text("\n".join(lines))
    # Spark re-runs the last batch when its commit is missing: drop the commit, so the offset is read.
    (checkpoint / "commits" / "0").unlink(missing_ok=True)


@pytest.fixture(scope="module")
def checkpointed(spark, kinesis, tmp_path_factory):
    """A stream with records and a finished AvailableNow query's checkpoint, as files to copy."""
    name = kinesis.create_stream(shards=1)
    kinesis.put_records(name, make_records(5))
    base = tmp_path_factory.mktemp("checkpointed")
    error = run_stream(kinesis_reader(spark, kinesis, name), base)
    assert error is None, error
    yield name, base / "checkpoint"
    kinesis.delete_stream(name)


@pytest.mark.parametrize(
    "offset, expected",
    [
        (
            "{garbage",
            "[KINESIS_OFFSET_MALFORMED] The Kinesis offset in checkpoint {checkpoint} cannot be read: it is not JSON",
        ),
        (
            '{"version": 99, "shards": {}}',
            "[KINESIS_OFFSET_VERSION_UNSUPPORTED] The Kinesis offset in checkpoint {checkpoint} has version 99",
        ),
        (
            '{"orders": {"0": 42, "1": 17}}',
            "[KINESIS_OFFSET_MALFORMED] The Kinesis offset in checkpoint {checkpoint} "
            'cannot be read: it has no integer "version"',
        ),
        (
            '{"version": 1, "shards": {"someone-elses-stream": {"shardId-000000000000": {"type": "trim_horizon"}}}}',
            "[KINESIS_OFFSET_STREAM_MISMATCH] The Kinesis offset in checkpoint {checkpoint} names stream(s) "
            "'someone-elses-stream', which this query does not read",
        ),
    ],
    ids=["garbage", "unknown-version", "kafka-offset", "other-stream"],
)
def test_a_corrupt_or_foreign_offset_in_the_checkpoint_fails_the_restart_clearly(
    spark, kinesis, checkpointed, tmp_path, offset, expected
):
    import shutil

    name, original = checkpointed
    checkpoint = tmp_path / "checkpoint"
    shutil.copytree(original, checkpoint)
    replace_source_offset(checkpoint, offset)
    error = run_stream(kinesis_reader(spark, kinesis, name), tmp_path, timeout=120)
    assert error is not None, "the restart ran on a checkpoint that is not this query's"
    assert expected.format(checkpoint=f"file:{checkpoint}") in str(error), str(error)[:3000]


# -- runtime: records at the size limits ------------------------------------------------------------


def test_empty_and_1_mib_records_round_trip_through_sink_and_source(spark, kinesis):
    name = kinesis.create_stream(shards=1)
    try:
        key = "big"
        records = [("empty", b""), (key, bytes(range(256)) * (MIB // 256 - 1) + b"x" * (256 - len(key)))]
        assert len(records[1][0]) + len(records[1][1]) == MIB
        df = spark.createDataFrame(records, "partitionKey string, data binary")
        save_sink(spark, source_options(kinesis, streamName=name), df)

        with bounded(180, "reading the records back"):
            rows = (
                load_source(spark, source_options(kinesis, streamName=name), stream=False)
                .select("partitionKey", "data")
                .collect()
            )
        assert sorted((r.partitionKey, bytes(r.data)) for r in rows) == sorted(records)
    finally:
        kinesis.delete_stream(name)


def test_a_record_over_1_mib_is_refused_before_anything_is_sent(spark, kinesis, stream):
    df = spark.createDataFrame([("k", b"x" * MIB)], "partitionKey string, data binary")
    with bounded(120, "a write of a too large record"), pytest.raises(Exception) as failure:
        save_sink(spark, source_options(kinesis, streamName=stream), df)
    message = java_message(failure.value)
    assert "[KINESIS_SINK_RECORD_TOO_LARGE]" in message and "1048577 bytes" in message, message[:2000]
    assert read_all(kinesis, stream) == []


# -- runtime: an endpoint that is not Kinesis ------------------------------------------------------


class NotKinesis(http.server.BaseHTTPRequestHandler):
    """A web server's 404 page for every request."""

    def _page(self):
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        body = b"<html><body><h1>404 Not Found</h1></body></html>"
        self.send_response(404)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _page

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def html_endpoint():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), NotKinesis)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(params=["html-404", "closed-port"])
def wrong_endpoint(request, html_endpoint):
    """(endpoint, what the error must say about it)."""
    if request.param == "html-404":
        return html_endpoint, [
            f"[KINESIS_ENDPOINT_NOT_KINESIS] {html_endpoint} answered Kinesis ",
            "with HTTP 404 and no Kinesis error code",
            "<h1>404 Not Found</h1>",
        ]
    closed = f"http://127.0.0.1:{free_ports(1)[0]}"
    return closed, [
        "[KINESIS_ENDPOINT_UNREACHABLE] Kinesis ",
        f"got no answer from {closed}: ConnectException: Connection refused",
    ]


def test_an_endpoint_that_is_not_kinesis_fails_a_stream_read_naming_it(spark, kinesis, wrong_endpoint, tmp_path):
    endpoint, says = wrong_endpoint
    df = load_source(spark, source_options(kinesis, endpoint=endpoint))
    error = run_stream(df, tmp_path, timeout=120)
    assert error is not None
    assert all(part in str(error) for part in says), str(error)[:3000]


def test_an_endpoint_that_is_not_kinesis_fails_a_batch_read_naming_it(spark, kinesis, wrong_endpoint):
    endpoint, says = wrong_endpoint
    with bounded(120, "a batch read from a wrong endpoint"), pytest.raises(Exception) as failure:
        load_source(spark, source_options(kinesis, endpoint=endpoint), stream=False).count()
    message = java_message(failure.value)
    assert all(part in message for part in says), message[:3000]


def test_an_endpoint_that_is_not_kinesis_fails_a_write_naming_it(spark, kinesis, wrong_endpoint):
    endpoint, says = wrong_endpoint
    with bounded(120, "a write to a wrong endpoint"), pytest.raises(Exception) as failure:
        save_sink(spark, source_options(kinesis, endpoint=endpoint))
    message = java_message(failure.value)
    assert all(part in message for part in says), message[:3000]


def test_an_endpoint_that_is_not_kinesis_fails_the_consumer_manager_naming_it(spark, kinesis, wrong_endpoint):
    from pyspark_kinesis import AWSKinesisConsumerManager, KinesisConsumerError

    endpoint, says = wrong_endpoint
    manager = (
        AWSKinesisConsumerManager.newManager(spark)
        .option("endpoint", endpoint)
        .option("region", kinesis.region)
        .create()
    )
    for call in (lambda: manager.listConsumers("orders"), lambda: manager.registerConsumer("orders", "app")):
        with (
            bounded(120, "a consumer manager call to a wrong endpoint"),
            pytest.raises(KinesisConsumerError) as failure,
        ):
            call()
        message = str(failure.value)
        assert all(part in message for part in says), message[:3000]
