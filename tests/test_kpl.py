# SPDX-License-Identifier: Apache-2.0
"""End to end, KPL aggregated records: aggregates made by the reference implementation
(aws-kinesis-agg) come out as one row per user record, in polling and EFO modes, with exact
offsets inside an aggregate through a restart and a failed batch's re-run."""

import json
import time

import pytest
from aws_kinesis_agg.aggregator import RecordAggregator
from pyspark.errors import StreamingQueryException

from streaming import READ_MODES, kinesis_reader, mode_options, run_available_now


def aggregate(records):
    """One KPL aggregate of (partition key, bytes) user records: (outer partition key, data)."""
    agg = RecordAggregator()
    for key, data in records:
        agg.add_user_record(key, data)
    outer_key, _, data = agg.clear_and_get().get_contents()
    return outer_key, data


def user_records(tag, n):
    return [(f"{tag}-k{i % 4}", json.dumps({"tag": tag, "i": i}).encode()) for i in range(n)]


def corrupt(data):
    """The same aggregate with its MD5 broken: read as one ordinary record."""
    return data[:-1] + bytes([data[-1] ^ 1])


def source_metric(query, name):
    return max(
        int(p["sources"][0]["metrics"].get(name, 0)) for p in query.recentProgress if p["sources"][0].get("metrics")
    )


@pytest.mark.parametrize("mode", READ_MODES)
def test_aggregates_come_out_as_their_user_records_mixed_with_plain_and_corrupt_ones(spark, kinesis, tmp_path, mode):
    stream = kinesis.create_stream(shards=1)
    first, second = user_records("a", 7), user_records("b", 3)
    broken_key, broken = aggregate(user_records("c", 2))
    puts = [
        ("plain-0", b"plain zero"),
        aggregate(first),
        ("plain-1", b"plain one"),
        aggregate(second),
        (broken_key, corrupt(broken)),
    ]
    seqs = [seq for _, seq in kinesis.put_records(stream, puts)]

    query = run_available_now(
        kinesis_reader(spark, kinesis, stream, **mode_options(mode)), tmp_path / "out", tmp_path / "checkpoint"
    )
    rows = spark.read.parquet(str(tmp_path / "out")).collect()
    got = sorted((r.sequenceNumber, r.subSequenceNumber, r.partitionKey, bytes(r.data)) for r in rows)
    expected = sorted(
        [
            (seqs[0], 0, "plain-0", b"plain zero"),
            (seqs[2], 0, "plain-1", b"plain one"),
            (seqs[4], 0, broken_key, corrupt(broken)),
        ]
        + [(seqs[1], i, k, d) for i, (k, d) in enumerate(first)]
        + [(seqs[3], i, k, d) for i, (k, d) in enumerate(second)]
    )
    assert got == expected
    assert {r.shardId for r in rows} == {"shardId-000000000000"}
    assert source_metric(query, "corruptAggregates") == 1
    assert source_metric(query, "outOfRangeRecords") == 0


@pytest.mark.parametrize("mode", READ_MODES)
def test_a_batch_ending_inside_an_aggregate_resumes_and_re_runs_exactly(spark, kinesis, tmp_path, mode):
    """maxRecordsPerFetch 3 and a tiny fetchBufferSize: each batch holds one fetch, so batches
    end inside aggregates. Batch 2 fails once after its sink wrote; the restarted query (no
    prefetched blocks: it reads the range from Kinesis again) must read exactly the same user
    records, and every user record arrives once."""
    stream = kinesis.create_stream(shards=1)
    read = dict(mode_options(mode), maxRecordsPerFetch="3", fetchBufferSize="1b")
    aggregates = [user_records(f"g{n}", 8) for n in range(3)]
    kinesis.put_records(stream, [aggregate(a) for a in aggregates] + [("plain", b"last")])
    attempts, out, checkpoint = tmp_path / "attempts", tmp_path / "out", tmp_path / "checkpoint"
    attempts.mkdir()
    marker = tmp_path / "failed-once"

    def sink(batch, batch_id):
        got = sorted((r.sequenceNumber, r.subSequenceNumber) for r in batch.collect())
        (attempts / f"{batch_id}-{time.time_ns()}.json").write_text(json.dumps(got))
        batch.write.mode("overwrite").parquet(str(out / f"batch={batch_id}"))
        if batch_id == 2 and not marker.exists():
            marker.write_text("x")
            raise RuntimeError("the sink fails once, after writing")

    def run():
        query = (
            kinesis_reader(spark, kinesis, stream, **read)
            .writeStream.foreachBatch(sink)
            .option("checkpointLocation", str(checkpoint))
            .trigger(availableNow=True)
            .start()
        )
        query.awaitTermination(300)
        return query

    with pytest.raises(StreamingQueryException, match="the sink fails once"):
        failed = run()
        if failed.exception():
            raise failed.exception()
    run()

    tries = sorted(attempts.glob("2-*.json"))
    assert len(tries) == 2
    assert json.loads(tries[0].read_text()) == json.loads(tries[1].read_text()), "the re-run read other records"
    offsets = " ".join(p.read_text() for p in (checkpoint / "offsets").iterdir() if p.name.isdigit())
    assert '"sub":' in offsets, "no batch ended inside an aggregate"
    rows = spark.read.parquet(str(out)).collect()
    got = sorted((r.partitionKey, bytes(r.data)) for r in rows)
    assert got == sorted([rec for a in aggregates for rec in a] + [("plain", b"last")])
