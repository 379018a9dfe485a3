# SPDX-License-Identifier: Apache-2.0
"""End to end, the off switch of the connector's own wire decoders: recordDecoder=sdk (or the
Spark conf spark.sparkkinesis.recordDecoder) reads GetRecords answers and SubscribeToShard
events through the AWS SDK's unmarshalling, with exactly the rows and offsets the connector's
decoders give."""

import json

import pytest
from aws_kinesis_agg.aggregator import RecordAggregator
from pyspark.errors import IllegalArgumentException

from streaming import READ_MODES, kinesis_reader, mode_options, run_available_now

SESSION_CONF = "spark.sparkkinesis.recordDecoder"


def records_of_every_kind():
    """Plain records with keys and data of every kind, and a KPL aggregate."""
    plain = [
        ("plain", b"text"),
        ("clé-ünïcödé-\U0001f600", "données".encode()),
        ("empty-data", b""),
        ("binary", bytes(range(256))),
        ("large", b"x" * 300_000),
    ]
    agg = RecordAggregator()
    for i in range(20):
        agg.add_user_record(f"user-{i}", json.dumps({"i": i}).encode())
    outer_key, _, data = agg.clear_and_get().get_contents()
    return plain + [(outer_key, data)]


def read(spark, kinesis, stream, out, options):
    run_available_now(kinesis_reader(spark, kinesis, stream, **options), out / "rows", out / "checkpoint")
    rows = sorted(
        (r.shardId, r.sequenceNumber, r.subSequenceNumber, r.partitionKey, bytes(r.data), r.approximateArrivalTimestamp)
        for r in spark.read.parquet(str(out / "rows")).collect()
    )
    batches = [p for p in (out / "checkpoint" / "offsets").iterdir() if p.name.isdigit()]
    offsets = sorted(batches, key=lambda p: int(p.name))
    return rows, json.loads(offsets[-1].read_text().splitlines()[-1])["shards"]


@pytest.mark.parametrize("mode", READ_MODES)
def test_the_sdk_reads_the_same_rows_and_offsets_as_the_connectors_decoders(spark, kinesis, tmp_path, mode):
    stream = kinesis.create_stream(shards=2)
    kinesis.put_records(stream, records_of_every_kind())
    ours = read(spark, kinesis, stream, tmp_path / "connector", mode_options(mode))
    sdk = read(spark, kinesis, stream, tmp_path / "sdk", dict(mode_options(mode), recordDecoder="sdk"))
    assert len(ours[0]) == 5 + 20
    assert sdk == ours


def test_the_spark_conf_switches_every_query_of_the_session(spark, kinesis, tmp_path):
    stream = kinesis.create_stream(shards=1)
    kinesis.put_records(stream, records_of_every_kind())
    ours = read(spark, kinesis, stream, tmp_path / "connector", {})
    spark.conf.set(SESSION_CONF, "sdk")
    try:
        assert read(spark, kinesis, stream, tmp_path / "sdk", {}) == ours
        spark.conf.set(SESSION_CONF, "fast")
        with pytest.raises(IllegalArgumentException, match=r"spark\.sparkkinesis\.recordDecoder \(Spark conf\)"):
            kinesis_reader(spark, kinesis, stream)
    finally:
        spark.conf.unset(SESSION_CONF)
