# SPDX-License-Identifier: Apache-2.0
"""End to end, real-time mode (trigger(realTime=...)) in both consumer modes: records reach a
foreach sink as they arrive, batch ends commit exact offsets, a query restarts and moves
between real-time and micro-batch mode on one checkpoint, and what cannot work is refused
with a clear error (too few task slots, prefetch-only options)."""

import json
import time
from pathlib import Path

import pytest
from pyspark.errors import StreamingQueryException
from realtime import (
    committed_batches,
    committed_offsets,
    deliveries,
    realtime_reader,
    start_realtime,
    wait_for,
)

from streaming import READ_MODES, make_records, mode_options


def last_sequence_per_shard(put):
    last = {}
    for shard, seq in put:
        if shard not in last or int(seq) > int(last[shard]):
            last[shard] = seq
    return last


def offsets_name(checkpoint, stream, last):
    """Whether the last committed batch ends, in every shard, just after its last record put."""
    try:
        shards = committed_offsets(checkpoint)["shards"][stream]
    except (FileNotFoundError, IndexError, KeyError):
        return False
    return all(shards.get(shard) == {"type": "after", "seq": seq} for shard, seq in last.items())


def stop_when_committed(query, checkpoint, stream, put):
    """Waits until a batch commits every record put (so a stop repeats nothing), then stops."""
    try:
        wait_for(
            lambda: offsets_name(checkpoint, stream, last_sequence_per_shard(put)),
            "a batch committed up to the last record",
            query,
        )
    finally:
        query.stop()


@pytest.mark.parametrize("mode", READ_MODES)
def test_records_reach_the_sink_once_as_they_arrive_and_batches_commit_exact_offsets(
    spark, kinesis, tmp_path, mode, short_batches
):
    stream = kinesis.create_stream(shards=2)
    sink, checkpoint = tmp_path / "sink", tmp_path / "checkpoint"
    put = kinesis.put_records(stream, make_records(40, "before"))
    query = start_realtime(realtime_reader(spark, kinesis, stream, **mode_options(mode)), sink, checkpoint)
    try:
        wait_for(lambda: len(deliveries(sink)) >= 40, "the records put before the start", query)
        put += kinesis.put_records(stream, make_records(40, "while"))
        wait_for(lambda: len(deliveries(sink)) >= 80, "the records put while it runs", query)
        wait_for(
            lambda: offsets_name(checkpoint, stream, last_sequence_per_shard(put)),
            "a batch that ends just after the last record",
            query,
        )
        metrics = query.lastProgress["sources"][0]["metrics"]
    finally:
        query.stop()

    rows = deliveries(sink)
    assert sorted(r["seq"] for r in rows) == sorted(seq for _, seq in put), "each record exactly once"
    assert {r["shard"] for r in rows} == {shard for shard, _ in put}
    assert int(metrics["realTimeTasks"]) == 2 and int(metrics["trackedShards"]) == 2
    # Every record read: the lag is small (Kinesis measures it from the records last returned).
    assert int(metrics["maxMsBehindLatest"]) < 1000, metrics
    if mode == "efo":
        assert metrics["liveSubscriptions"] == "2", metrics


@pytest.mark.parametrize("mode", READ_MODES)
def test_a_restarted_query_continues_where_its_last_batch_ended(spark, kinesis, tmp_path, mode, short_batches):
    stream = kinesis.create_stream(shards=2)
    read = mode_options(mode)
    sink, checkpoint = tmp_path / "sink", tmp_path / "checkpoint"
    first = kinesis.put_records(stream, make_records(30, "first"))
    query = start_realtime(realtime_reader(spark, kinesis, stream, **read), sink, checkpoint)
    try:
        # Stop after a commit, so the restart has a batch to continue from: a stop during the
        # first batch's end can leave offsets/ without a batch file, which Spark then refuses
        # (STATE_STORE_CHECKPOINT_LOCATION_NOT_EMPTY, see docs/troubleshooting.md).
        wait_for(lambda: committed_batches(checkpoint), "the first batch's commit", query)
        first += kinesis.put_records(stream, make_records(10, "middle"))
        wait_for(lambda: len(deliveries(sink)) >= 40, "the records put after the commit", query)
    finally:
        query.stop()  # in the middle of a batch: it is not committed, and runs again
    delivered_before = {r["seq"] for r in deliveries(sink)}
    second = kinesis.put_records(stream, make_records(30, "second"))
    query = start_realtime(realtime_reader(spark, kinesis, stream, **read), sink, checkpoint)
    try:
        wait_for(
            lambda: {seq for _, seq in first + second} <= {r["seq"] for r in deliveries(sink)},
            "every record after the restart",
            query,
        )
    finally:
        stop_when_committed(query, checkpoint, stream, first + second)

    rows = deliveries(sink)
    by_seq = {}
    for r in rows:
        by_seq.setdefault(r["seq"], set()).add(r["data"])
    assert set(by_seq) == {seq for _, seq in first + second}, "nothing lost, nothing unknown"
    assert all(len(data) == 1 for data in by_seq.values()), "a repeated sequence number carries the same record"
    # Only the batch the stop interrupted runs again: what came after it arrives once.
    repeated = [r["seq"] for r in rows if sum(1 for o in rows if o["seq"] == r["seq"]) > 1]
    assert set(repeated) <= delivered_before
    assert all(sum(1 for r in rows if r["seq"] == seq) == 1 for _, seq in second)


def micro_batch_into(sink):
    """A foreachBatch function writing the rows as FileSink does (micro-batch mode)."""

    def write(batch, batch_id):
        rows = batch.select("sequenceNumber", "shardId", "partitionKey", "data").collect()
        Path(sink, f"micro-{batch_id}.jsonl").write_text(
            "".join(
                json.dumps(
                    {"seq": r.sequenceNumber, "shard": r.shardId, "key": r.partitionKey, "data": bytes(r.data).decode()}
                )
                + "\n"
                for r in rows
            )
        )

    return write


@pytest.mark.parametrize("mode", READ_MODES)
def test_a_checkpoint_moves_between_real_time_and_micro_batch_mode(spark, kinesis, tmp_path, mode, short_batches):
    stream = kinesis.create_stream(shards=2)
    read = mode_options(mode)
    sink, checkpoint = tmp_path / "sink", tmp_path / "checkpoint"
    put = kinesis.put_records(stream, make_records(20, "real-time-1"))
    query = start_realtime(realtime_reader(spark, kinesis, stream, **read), sink, checkpoint)
    stop_when_committed(query, checkpoint, stream, put)

    put += kinesis.put_records(stream, make_records(20, "micro-batch"))
    query = (
        realtime_reader(spark, kinesis, stream, **read)
        .writeStream.foreachBatch(micro_batch_into(sink))
        .option("checkpointLocation", str(checkpoint))
        .trigger(availableNow=True)
        .start()
    )
    assert query.awaitTermination(180), "the micro-batch run did not finish"
    assert offsets_name(checkpoint, stream, last_sequence_per_shard(put)), committed_offsets(checkpoint)

    put += kinesis.put_records(stream, make_records(20, "real-time-2"))
    query = start_realtime(realtime_reader(spark, kinesis, stream, **read), sink, checkpoint)
    stop_when_committed(query, checkpoint, stream, put)

    seqs = [r["seq"] for r in deliveries(sink)]
    assert sorted(seqs) == sorted(seq for _, seq in put), "each record exactly once across the three runs"


def query_error(spark, df, tmp_path):
    """The error a real-time query on `df` fails with."""
    query = start_realtime(df, tmp_path / "sink", tmp_path / "checkpoint")
    try:
        with pytest.raises(StreamingQueryException) as failure:
            query.awaitTermination(120)
        return str(failure.value)
    finally:
        query.stop()


def test_a_cluster_with_fewer_task_slots_than_open_shards_fails_at_start_saying_how_many(
    spark, kinesis, tmp_path, short_batches
):
    stream = kinesis.create_stream(shards=3)
    started = time.monotonic()
    error = query_error(spark, realtime_reader(spark, kinesis, stream), tmp_path)
    assert "KINESIS_REAL_TIME_NOT_ENOUGH_SLOTS" in error
    assert "needs 3 task slots at once, and the cluster has 2" in error
    assert time.monotonic() - started < 60, "it fails at once instead of hanging"


def test_options_that_cannot_apply_in_real_time_mode_are_refused_by_name(spark, kinesis, tmp_path, short_batches):
    stream = kinesis.create_stream(shards=1)
    error = query_error(spark, realtime_reader(spark, kinesis, stream, SHARDSPERTASK="2"), tmp_path)
    assert "KINESIS_OPTION_NOT_IN_REAL_TIME" in error and "'SHARDSPERTASK'" in error
    assert "it tunes prefetching" in error
