# SPDX-License-Identifier: Apache-2.0
"""End to end, reading with enhanced fan-out (consumerMode efo) against the local Kinesis over
HTTP/2: every record once, restarts, consumer registration and deregistration, and a polling
query beside an EFO one."""

import json
import time
import uuid

from faults import Fault
from pyspark_kinesis import AWSKinesisConsumerManager
from streaming import kinesis_reader, make_records, run_available_now


def consumers_of(spark, kinesis, stream):
    manager = (
        AWSKinesisConsumerManager.newManager(spark)
        .option("endpoint", kinesis.endpoint)
        .option("region", kinesis.region)
        .create()
    )
    return {r.consumerName: r for r in manager.listConsumers(stream).collect()}


def test_efo_reads_every_record_once_then_deregisters_its_consumer(spark, kinesis, tmp_path):
    stream = kinesis.create_stream(shards=3)
    records = make_records(150)
    placed = kinesis.put_records(stream, records)
    name = f"e2e-{uuid.uuid4().hex[:8]}"

    run_available_now(
        kinesis_reader(
            spark, kinesis, stream, consumerMode="efo", consumerName=name, requireConsumerDeregistration="true"
        ),
        tmp_path / "sink",
        tmp_path / "checkpoint",
    )

    rows = spark.read.parquet(str(tmp_path / "sink")).collect()
    assert sorted((r.shardId, r.sequenceNumber) for r in rows) == sorted(placed)
    assert sorted((r.partitionKey, bytes(r.data)) for r in rows) == sorted(records)
    # Deregistration is asked for on stop; Kinesis shows the consumer DELETING for a while, then not at all.
    deadline = time.monotonic() + 30
    while f"sparkkinesis_{name}" in (left := consumers_of(spark, kinesis, stream)):
        assert left[f"sparkkinesis_{name}"].consumerStatus == "DELETING", "consumer not deregistered"
        assert time.monotonic() < deadline, "consumer still DELETING 30 s after the query stopped"
        time.sleep(0.5)


def test_efo_restart_continues_and_reuses_the_consumer(spark, kinesis, tmp_path):
    stream = kinesis.create_stream(shards=2)
    first, second = make_records(80, "first"), make_records(80, "second")
    sink, checkpoint = tmp_path / "sink", tmp_path / "checkpoint"
    name = f"e2e-{uuid.uuid4().hex[:8]}"

    def run():
        run_available_now(
            kinesis_reader(spark, kinesis, stream, consumerMode="efo", consumerName=name, consumerNamePrefix="app_"),
            sink,
            checkpoint,
        )
        return consumers_of(spark, kinesis, stream)[f"app_{name}"].consumerARN

    kinesis.put_records(stream, first)
    arn = run()
    kinesis.put_records(stream, second)
    assert run() == arn, "the registered consumer is reused"
    keys = sorted(r.partitionKey for r in spark.read.parquet(str(sink)).collect())
    assert keys == sorted(k for k, _ in first + second)


def test_polling_and_efo_side_by_side_both_get_every_record(spark, kinesis, tmp_path):
    stream = kinesis.create_stream(shards=2)
    records = make_records(100)
    kinesis.put_records(stream, records)

    run_available_now(kinesis_reader(spark, kinesis, stream), tmp_path / "polling", tmp_path / "c1")
    run_available_now(
        kinesis_reader(
            spark,
            kinesis,
            stream,
            consumerMode="efo",
            consumerName=f"e2e-{uuid.uuid4().hex[:8]}",
            requireConsumerDeregistration="true",
        ),
        tmp_path / "efo",
        tmp_path / "c2",
    )
    for out in ("polling", "efo"):
        keys = sorted(r.partitionKey for r in spark.read.parquet(str(tmp_path / out)).collect())
        assert keys == sorted(k for k, _ in records), out


def test_progress_reports_live_subscriptions_and_resubscriptions_in_efo_only(spark, kinesis, fault_proxy, tmp_path):
    stream = kinesis.create_stream(shards=3)
    kinesis.put_records(stream, make_records(30))
    # Each shard's first subscription ends after one event, as Kinesis ends one every 5 minutes.
    fault_proxy.add(Fault.end_subscription_early(after_events=1, first=3))
    spark.conf.set("spark.sql.streaming.noDataProgressEventInterval", "1000")
    query = (
        kinesis_reader(
            spark,
            kinesis,
            stream,
            endpoint=fault_proxy.endpoint,
            consumerMode="efo",
            consumerName=f"e2e-{uuid.uuid4().hex[:8]}",
            requireConsumerDeregistration="true",
        )
        .writeStream.format("noop")
        .option("checkpointLocation", str(tmp_path / "c1"))
        .trigger(processingTime="500 milliseconds")
        .start()
    )

    def efo_metrics():
        return [p["sources"][0]["metrics"] for p in query.recentProgress if p["sources"][0].get("metrics")]

    def renewed_and_live(m):
        return m.get("liveSubscriptions") == "3" and int(m.get("resubscriptions", 0)) >= 3

    try:
        deadline = time.monotonic() + 120
        while not any(renewed_and_live(m) for m in efo_metrics()):
            assert query.exception() is None, query.exception()
            assert time.monotonic() < deadline, f"no progress with 3 live subscriptions renewed: {efo_metrics()[-3:]}"
            time.sleep(0.5)
    finally:
        query.stop()
        spark.conf.unset("spark.sql.streaming.noDataProgressEventInterval")
    assert fault_proxy.injected[("SubscribeToShard", "end_early")] == 3
    # One subscription per shard, never more (a subscription is kept across batches).
    assert all(0 <= int(m["liveSubscriptions"]) <= 3 for m in efo_metrics())
    # Lag from the events' MillisBehindLatest (none is known before a subscription's first
    # event): every record was read, so the last one reported is small.
    lags = [m for m in efo_metrics() if "maxMsBehindLatest" in m]
    assert lags and float(lags[-1]["maxMsBehindLatest"]) < 1000, lags[-1:]

    polling = run_available_now(kinesis_reader(spark, kinesis, stream), tmp_path / "polling", tmp_path / "c2")
    reported = [p["sources"][0]["metrics"] for p in polling.recentProgress if p["sources"][0].get("metrics")]
    assert reported and not any("liveSubscriptions" in m or "resubscriptions" in m for m in reported)


def test_efo_initial_position_at_a_sequence_number_reads_from_exactly_that_record(spark, kinesis, tmp_path):
    stream = kinesis.create_stream(shards=1)
    records = make_records(30)
    placed = kinesis.put_records(stream, records)
    shard, start = placed[10]
    position = json.dumps({"version": 1, "shards": {stream: {shard: {"type": "at", "seq": start}}}})

    run_available_now(
        kinesis_reader(
            spark,
            kinesis,
            stream,
            consumerMode="efo",
            consumerName=f"e2e-{uuid.uuid4().hex[:8]}",
            initialPosition=position,
            requireConsumerDeregistration="true",
        ),
        tmp_path / "sink",
        tmp_path / "checkpoint",
    )

    rows = spark.read.parquet(str(tmp_path / "sink")).collect()
    assert sorted((r.shardId, r.sequenceNumber) for r in rows) == sorted(placed[10:])
    assert sorted((r.partitionKey, bytes(r.data)) for r in rows) == sorted(records[10:])
