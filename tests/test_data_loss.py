# SPDX-License-Identifier: Apache-2.0
"""End to end, failOnDataLoss: a query restarted after records it had not read yet were deleted
by retention fails with KINESIS_DATA_LOSS, or with failOnDataLoss=false goes on with what is
left and counts the loss, in micro-batch and in real-time mode. Two ways records expire, both
emulated by the fault proxy (the local Kinesis keeps records a day at least): the oldest
records of an open shard are trimmed, or a reshard closed the shard the checkpoint names and
the shard itself expired, so ListShards no longer lists it. A batch already in the offset log
whose records expired before it ran again fails the same way, or reads what is left."""

import json
from pathlib import Path

import pytest
from pyspark.errors import StreamingQueryException
from realtime import committed_batches, deliveries, realtime_reader, start_realtime, wait_for

from streaming import READ_MODES, kinesis_reader, make_records, mode_options, run_available_now

SHARD = "shardId-000000000000"


def data_loss_events(query):
    return max(
        [
            int(p["sources"][0]["metrics"].get("dataLossEvents", 0))
            for p in query.recentProgress
            if p["sources"][0].get("metrics")
        ],
        default=0,
    )


def sink_keys(spark, out):
    return sorted(r.partitionKey for r in spark.read.parquet(str(out)).collect())


@pytest.mark.parametrize("mode", READ_MODES)
def test_records_trimmed_before_a_restart_fail_the_query_or_are_counted(spark, kinesis, fault_proxy, tmp_path, mode):
    stream = kinesis.create_stream(shards=1)
    read = dict(mode_options(mode), endpoint=fault_proxy.endpoint)
    out, checkpoint = tmp_path / "out", tmp_path / "checkpoint"
    first = make_records(3, "first")
    kinesis.put_records(stream, first)
    run_available_now(kinesis_reader(spark, kinesis, stream, **read), out, checkpoint)

    later = make_records(6, "later")
    seqs = [seq for _, seq in kinesis.put_records(stream, later)]
    fault_proxy.trim(stream, SHARD, seqs[3])  # later[0:3] expire unread

    with pytest.raises(StreamingQueryException, match="KINESIS_DATA_LOSS") as failure:
        run_available_now(kinesis_reader(spark, kinesis, stream, **read), out, checkpoint)
    assert SHARD in str(failure.value) and seqs[3] in str(failure.value)

    query = run_available_now(kinesis_reader(spark, kinesis, stream, failOnDataLoss="false", **read), out, checkpoint)
    assert sink_keys(spark, out) == sorted(k for k, _ in first + later[3:])
    assert data_loss_events(query) == 1
    assert fault_proxy.injected[("GetShardIterator", "trimmed")] > 0


@pytest.mark.parametrize("mode", READ_MODES)
def test_a_reshard_whose_parent_expired_while_the_query_was_stopped_fails_or_goes_on_with_the_children(
    spark, kinesis, fault_proxy, tmp_path, mode
):
    """The checkpoint names a shard Kinesis no longer lists: split while the query was stopped,
    then past the retention period (the proxy hides it from ListShards and refuses reads of it)."""
    stream = kinesis.create_stream(shards=1)
    read = dict(mode_options(mode), endpoint=fault_proxy.endpoint)
    out, checkpoint = tmp_path / "out", tmp_path / "checkpoint"
    first = make_records(3, "first")
    kinesis.put_records(stream, first)
    run_available_now(kinesis_reader(spark, kinesis, stream, **read), out, checkpoint)

    kinesis.put_records(stream, make_records(4, "expired"))  # never read: gone with the parent
    parent = kinesis.client.list_shards(StreamName=stream)["Shards"][0]
    middle = (int(parent["HashKeyRange"]["StartingHashKey"]) + int(parent["HashKeyRange"]["EndingHashKey"])) // 2
    kinesis.client.split_shard(StreamName=stream, ShardToSplit=SHARD, NewStartingHashKey=str(middle))
    kinesis.wait_active(stream)
    children = sorted(
        s["ShardId"] for s in kinesis.client.list_shards(StreamName=stream)["Shards"] if s.get("ParentShardId") == SHARD
    )
    later = make_records(8, "later")
    later_shards = {shard for shard, _ in kinesis.put_records(stream, later)}
    assert later_shards <= set(children) and len(children) == 2
    fault_proxy.expire(stream, SHARD)

    with pytest.raises(StreamingQueryException, match="KINESIS_DATA_LOSS") as failure:
        run_available_now(kinesis_reader(spark, kinesis, stream, **read), out, checkpoint)
    message = str(failure.value)
    assert f"{stream}/{SHARD}" in message and ", ".join(children) in message

    query = run_available_now(kinesis_reader(spark, kinesis, stream, failOnDataLoss="false", **read), out, checkpoint)
    assert sink_keys(spark, out) == sorted(k for k, _ in first + later)
    assert data_loss_events(query) == 1


@pytest.mark.parametrize("mode", READ_MODES)
def test_in_real_time_mode_records_trimmed_before_a_restart_are_counted_and_the_rest_read(
    spark, kinesis, fault_proxy, tmp_path, mode, short_batches
):
    """The same trim, found by a real-time query continuing the checkpoint with failOnDataLoss=false."""
    stream = kinesis.create_stream(shards=1)
    read = dict(mode_options(mode), endpoint=fault_proxy.endpoint)
    out, checkpoint, sink = tmp_path / "out", tmp_path / "checkpoint", tmp_path / "sink"
    kinesis.put_records(stream, make_records(3, "first"))
    run_available_now(kinesis_reader(spark, kinesis, stream, **read), out, checkpoint)

    later = make_records(6, "later")
    seqs = [seq for _, seq in kinesis.put_records(stream, later)]
    fault_proxy.trim(stream, SHARD, seqs[3])  # later[0:3] expire unread

    df = realtime_reader(spark, kinesis, stream, failOnDataLoss="false", **read)
    query = start_realtime(df, sink, checkpoint)
    try:
        wait_for(lambda: len(deliveries(sink)) >= 3, "the records left", query)
        wait_for(lambda: len(committed_batches(checkpoint)) > 1, "a real-time batch's commit", query)
        wait_for(lambda: data_loss_events(query) == 1, "the loss counted in the query's metrics", query)
    finally:
        query.stop()
    assert sorted(r["seq"] for r in deliveries(sink)) == seqs[3:]


def batch_keys(spark, out, batch):
    """The partition keys of the rows a file sink stored for one batch (its log names the files)."""
    lines = (Path(out) / "_spark_metadata" / str(batch)).read_text().splitlines()[1:]
    files = [json.loads(line)["path"] for line in lines]
    rows = spark.read.parquet(*files).collect() if files else []
    return [(r.shardId, r.partitionKey) for r in rows]


def batch_start(checkpoint, batch, stream, shard):
    """Where a batch of the offset log starts on a shard: the previous batch's end, else the
    query's initial offset (which names the shard's first record when it held one)."""
    if batch == 0:
        offset = json.loads((Path(checkpoint) / "sources" / "0" / "kinesis-initial-offset.json").read_text())
    else:
        offset = json.loads((Path(checkpoint) / "offsets" / str(batch - 1)).read_text().splitlines()[-1])
    return offset["shards"][stream].get(shard, {"type": "trim_horizon"})["type"]


def test_a_batch_in_the_offset_log_whose_records_expired_fails_or_reads_what_is_left(
    spark, kinesis, fault_proxy, tmp_path
):
    """A batch planned before a stop runs again at the restart, from the offset log; by then
    retention deleted its records on one shard. failOnDataLoss=true fails with the documented
    error on every restart; false runs the batch with what is left (the other shard's records),
    counts the loss, and goes on."""
    stream = kinesis.create_stream(shards=2)
    out, checkpoint, rerun = tmp_path / "out", tmp_path / "checkpoint", tmp_path / "rerun"
    first = make_records(20, "first")
    kinesis.put_records(stream, first)
    run_available_now(kinesis_reader(spark, kinesis, stream, endpoint=fault_proxy.endpoint), out, checkpoint)
    last = committed_batches(checkpoint)[-1]
    # The batch is in the offset log, not done: it runs again at the next start (its checksum goes too,
    # or the commit written then could not take its name).
    for name in (str(last), f".{last}.crc"):
        (checkpoint / "commits" / name).unlink(missing_ok=True)
    in_batch = batch_keys(spark, out, last)
    lost_shard = min(shard for shard, _ in in_batch)

    later = make_records(20, "later")
    placed = kinesis.put_records(stream, later)
    on_lost_shard = [seq for shard, seq in placed if shard == lost_shard]
    assert on_lost_shard, f"no later record landed on {lost_shard}"
    fault_proxy.trim(stream, lost_shard, on_lost_shard[0])  # the batch's records of lost_shard expire

    expected_error = (
        "KINESIS_RECORDS_UNAVAILABLE"
        if batch_start(checkpoint, last, stream, lost_shard) == "trim_horizon"
        else "KINESIS_DATA_LOSS"
    )
    for _ in range(2):
        with pytest.raises(StreamingQueryException, match=expected_error) as failure:
            run_available_now(kinesis_reader(spark, kinesis, stream, endpoint=fault_proxy.endpoint), rerun, checkpoint)
        assert f"{stream}/{lost_shard}" in str(failure.value)
        assert last not in committed_batches(checkpoint)

    query = run_available_now(
        kinesis_reader(spark, kinesis, stream, endpoint=fault_proxy.endpoint, failOnDataLoss="false"),
        rerun,
        checkpoint,
    )
    kept = [key for shard, key in in_batch if shard != lost_shard]
    assert sorted(batch_keys(spark, rerun, last)) == sorted((s, k) for s, k in in_batch if s != lost_shard)
    assert sink_keys(spark, rerun) == sorted(kept + [k for k, _ in later])
    rerun_progress = [p for p in query.recentProgress if p["batchId"] == last]
    assert rerun_progress, f"no progress reported for the batch run again ({last})"
    assert int(rerun_progress[0]["sources"][0]["metrics"]["dataLossEvents"]) == 1
