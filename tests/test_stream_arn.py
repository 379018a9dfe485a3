# SPDX-License-Identifier: Apache-2.0
"""End to end: streams named by ARN (streamARN), and an already registered enhanced fan-out
consumer named exactly (consumerNamePrefix "" with its full name)."""

import json
import uuid

import pytest
from pyspark.errors import PySparkException, StreamingQueryException

from streaming import kinesis_reader, make_records, run_available_now


def stream_arn(kinesis, stream):
    return kinesis.client.describe_stream_summary(StreamName=stream)["StreamDescriptionSummary"]["StreamARN"]


def read_by_arn(spark, kinesis, arns, **options):
    """A read naming its streams by ARN only: no streamName, no region option."""
    reader = (
        spark.readStream.format("kinesis")
        .option("streamARN", ",".join(arns))
        .option("endpoint", kinesis.endpoint)
        .option("initialPosition", "trim_horizon")
        .option("maxFetchDuration", "2s")
        .option("minFetchPeriod", "200ms")
    )
    return reader.options(**options).load()


def read_back(spark, df, tmp_path):
    run_available_now(df, tmp_path / "out", tmp_path / "chk")
    return spark.read.parquet(str(tmp_path / "out")).collect()


def test_one_stream_read_by_its_arn(spark, kinesis, stream, tmp_path):
    records = make_records(100)
    kinesis.put_records(stream, records)
    rows = read_back(spark, read_by_arn(spark, kinesis, [stream_arn(kinesis, stream)]), tmp_path)
    assert sorted((r.partitionKey, bytes(r.data)) for r in rows) == sorted(records)
    assert {r.stream for r in rows} == {stream}


def test_two_streams_read_by_a_list_of_arns(spark, kinesis, tmp_path):
    first, second = kinesis.create_stream(shards=1), kinesis.create_stream(shards=2)
    records = {first: make_records(40), second: make_records(60)}
    for name, batch in records.items():
        kinesis.put_records(name, batch)
    df = read_by_arn(spark, kinesis, [stream_arn(kinesis, first), stream_arn(kinesis, second)])
    rows = read_back(spark, df, tmp_path)
    assert sorted((r.stream, r.partitionKey, bytes(r.data)) for r in rows) == sorted(
        (name, k, d) for name, batch in records.items() for k, d in batch
    )


def test_a_checkpoint_of_a_read_by_arn_is_keyed_by_name_and_read_on(spark, kinesis, stream, tmp_path):
    """The calls name the ARN; offsets stay keyed by stream name, so the checkpoint of a read by
    ARN (of this version or an earlier one) goes on where it stopped, here read on by name."""
    first, second = make_records(30), make_records(20)
    kinesis.put_records(stream, first)
    run_available_now(read_by_arn(spark, kinesis, [stream_arn(kinesis, stream)]), tmp_path / "out", tmp_path / "chk")
    offsets = sorted((tmp_path / "chk" / "offsets").glob("[0-9]*"), key=lambda p: int(p.name))
    assert list(json.loads(offsets[-1].read_text().splitlines()[-1])["shards"]) == [stream]

    kinesis.put_records(stream, second)
    run_available_now(kinesis_reader(spark, kinesis, stream), tmp_path / "out", tmp_path / "chk")
    rows = spark.read.parquet(str(tmp_path / "out")).collect()
    assert sorted((r.partitionKey, bytes(r.data)) for r in rows) == sorted(first + second), (
        "each record exactly once over the restart"
    )


def test_an_arn_of_another_account_is_not_read_as_the_callers_stream_of_that_name(spark, kinesis, stream, tmp_path):
    """Kinesis resolves a bare name in the caller's account: were the ARN reduced to the name,
    this would read the local account's stream of the same name. kinesis-mock serves one
    account, so the other account's stream is not found, named by its ARN."""
    kinesis.put_records(stream, make_records(5))
    arn = stream_arn(kinesis, stream)
    account = arn.split(":")[4]
    elsewhere = arn.replace(f":{account}:", ":" + ("1" if account != "1" * 12 else "2") * 12 + ":")
    with pytest.raises(StreamingQueryException) as failure:
        run_available_now(read_by_arn(spark, kinesis, [elsewhere]), tmp_path / "out", tmp_path / "chk", timeout=120)
    assert f"[KINESIS_STREAM_NOT_FOUND] Kinesis stream '{elsewhere}' was not found" in str(failure.value)
    assert not list((tmp_path / "out").glob("*.parquet")), "nothing was read"


def test_stream_arn_and_stream_name_together_are_refused_at_load(spark, kinesis, stream):
    with pytest.raises(PySparkException, match="KINESIS_CONFLICTING_OPTIONS.*streamName.*streamARN"):
        read_by_arn(spark, kinesis, [stream_arn(kinesis, stream)], streamName=stream)


def test_a_registered_consumer_is_read_with_by_its_exact_name(spark, kinesis, stream, tmp_path):
    """consumerNamePrefix "" (the Databricks docs allow an empty prefix): consumerName is the
    full name of a consumer someone registered, which the query reuses instead of registering."""
    name = f"team-reader-{uuid.uuid4().hex[:6]}"
    arn = stream_arn(kinesis, stream)
    kinesis.client.register_stream_consumer(StreamARN=arn, ConsumerName=name)
    records = make_records(50)
    kinesis.put_records(stream, records)

    df = read_by_arn(spark, kinesis, [arn], consumerMode="efo", consumerNamePrefix="", consumerName=name)
    rows = read_back(spark, df, tmp_path)

    assert sorted((r.partitionKey, bytes(r.data)) for r in rows) == sorted(records)
    consumers = kinesis.client.list_stream_consumers(StreamARN=arn)["Consumers"]
    assert [c["ConsumerName"] for c in consumers] == [name], "no other consumer was registered"
