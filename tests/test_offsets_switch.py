# SPDX-License-Identifier: Apache-2.0
"""End to end, a pipeline moved here from qubole's kinesis-sql or awslabs' spark-sql-kinesis-connector
continues right after the last record the old query committed. The old query's checkpoint is
written here in its connector's layout, as it stands after reading a known prefix of each shard
across a split (the parent read to its end); `offsets import` turns it into an initialPosition,
and what this connector then reads, with the old prefix, is every record exactly once."""

import io
import json
import time

import pytest

from pyspark_kinesis import _cli
from streaming import kinesis_reader, make_records, read_shard, run_available_now

PLANNED = int(time.time() * 1000)


class OldCheckpoint:
    """Spark's offset and commit logs (offsets/N: "v1", batch metadata, a line per source;
    commits/N) and the connectors' per-batch, per-shard files under the source's folder."""

    def __init__(self, root, folder):
        self.root, self.folder = root, folder

    def write(self, relative, text):
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)

    def batch(self, n, stream, starts, stops, committed=True):
        """Batch n: where each shard's reading started (its offset log line) and where the
        tasks stopped (their files); positions are (iteratorType, sequence number or "")."""
        meta = json.dumps({"batchWatermarkMs": 0, "batchTimestampMs": PLANNED, "conf": {}})
        entry = {"metadata": {"streamName": stream, "batchId": str(n)}}
        entry.update(
            {shard: self.fields(p[0], p[1] if len(p) > 1 else "", as_text=True) for shard, p in starts.items()}
        )
        self.write(f"offsets/{n}", "\n".join(["v1", meta, json.dumps(entry)]))
        for shard, position in stops.items():
            self.write(f"sources/0/{self.folder}/{n}/{shard}", json.dumps({"shardId": shard, **self.fields(*position)}))
        if committed:
            self.write(f"commits/{n}", 'v1\n{"nextBatchWatermarkMs":0}')

    def fields(self, kind, seq="", as_text=False):
        fields = {"iteratorType": kind, "iteratorPosition": seq}
        if self.folder == "shard-source":  # awslabs: where inside a KPL aggregate (none here)
            fields.update(subSequenceNumber="-1" if as_text else -1, isLast="true" if as_text else True)
        return fields


def after(records, n):
    return ("AFTER_SEQUENCE_NUMBER", records[n - 1][0])


@pytest.mark.parametrize("connector", ["qubole", "awslabs"])
def test_a_pipeline_switched_here_continues_after_the_old_connectors_last_committed_batch(
    spark, kinesis, tmp_path, connector
):
    stream = kinesis.create_stream(shards=2)
    kinesis.put_records(stream, make_records(24, "first"))
    client = kinesis.client
    parent = min(client.list_shards(StreamName=stream)["Shards"], key=lambda s: s["ShardId"])
    low, high = int(parent["HashKeyRange"]["StartingHashKey"]), int(parent["HashKeyRange"]["EndingHashKey"])
    client.split_shard(StreamName=stream, ShardToSplit=parent["ShardId"], NewStartingHashKey=str((low + high) // 2))
    kinesis.wait_active(stream)
    kinesis.put_records(stream, make_records(24, "second"))
    shards = {
        s["ShardId"]: [(r["SequenceNumber"], r["Data"]) for r in read_shard(client, stream, s["ShardId"])]
        for s in client.list_shards(StreamName=stream)["Shards"]
    }
    s0, s1, s2, s3 = sorted(shards)
    assert all(len(shards[s]) >= 3 for s in (s0, s1, s2)), {s: len(r) for s, r in shards.items()}

    old = OldCheckpoint(tmp_path / "old", "shard-commit" if connector == "qubole" else "shard-source")
    if connector == "qubole":
        # The split's parent was read to its end batches ago: qubole dropped it from its offsets.
        old.batch(
            4,
            stream,
            {s1: after(shards[s1], 1), s2: ("TRIM_HORIZON",), s3: ("TRIM_HORIZON",)},
            {s1: after(shards[s1], 2), s2: after(shards[s2], 2), s3: ("TRIM_HORIZON",)},
        )
        read_before = shards[s0] + shards[s1][:2] + shards[s2][:2]
    else:
        # The batch read the parent to its end; its children were not started yet.
        old.batch(
            4, stream, {s0: after(shards[s0], 1), s1: ("TRIM_HORIZON",)}, {s0: ("SHARD_END",), s1: after(shards[s1], 3)}
        )
        read_before = shards[s0] + shards[s1][:3]
    # A later batch read on but was never committed: Spark runs it again, so it delivered nothing.
    old.batch(5, stream, {s1: after(shards[s1], 3)}, {s1: after(shards[s1], len(shards[s1]))}, committed=False)

    out, err = io.StringIO(), io.StringIO()
    assert _cli.main(["offsets", "import", str(old.root), "--from", connector], out=out, err=err) == 0, err.getvalue()
    run_available_now(
        kinesis_reader(spark, kinesis, stream, initialPosition=out.getvalue().strip(), maxFetchDuration="500ms"),
        tmp_path / "out",
        tmp_path / "checkpoint",
    )
    read_here = [bytes(r.data) for r in spark.read.parquet(str(tmp_path / "out")).collect()]

    every = sorted(data for records in shards.values() for _, data in records)
    assert sorted([data for _, data in read_before] + read_here) == every

    # The new query's own checkpoint, with how far behind each shard is asked of Kinesis: read up to the tip.
    out, err = io.StringIO(), io.StringIO()
    assert (
        _cli.main(
            [
                "offsets",
                "show",
                str(tmp_path / "checkpoint"),
                "--endpoint-url",
                kinesis.endpoint,
                "--region",
                kinesis.region,
            ],
            out=out,
            err=err,
        )
        == 0
    ), err.getvalue()
    rows = [row.split() for row in out.getvalue().splitlines() if row.startswith(stream)]
    assert {row[1] for row in rows if row[-1] != "-"} >= {s1, s2, s3}, out.getvalue()
    assert all(row[-2:] == ["0", "ms"] or row[-1] == "-" for row in rows), out.getvalue()


def test_show_reads_a_checkpoint_spark_wrote_in_offset_log_version_2(spark, kinesis, tmp_path):
    """Spark 4.2 writes "v2" offset logs, a line per source named with .name(), when asked to."""
    stream = kinesis.create_stream(shards=2)
    placed = kinesis.put_records(stream, make_records(30))
    last = {}
    for shard, seq in placed:
        last[shard] = max(last.get(shard, seq), seq, key=int)
    confs = {
        "spark.sql.streaming.offsetLog.formatVersion": "2",
        "spark.sql.streaming.queryEvolution.enableSourceEvolution": "true",
    }
    for key, value in confs.items():
        spark.conf.set(key, value)
    try:
        reader = (
            spark.readStream.format("kinesis")
            .name("orders")
            .option("streamName", stream)
            .option("endpoint", kinesis.endpoint)
            .option("region", kinesis.region)
            .option("initialPosition", "trim_horizon")
            .option("maxFetchDuration", "500ms")
        )
        run_available_now(reader.load(), tmp_path / "out", tmp_path / "checkpoint")
    finally:
        for key in confs:
            spark.conf.unset(key)
    assert (tmp_path / "checkpoint" / "offsets" / "0").read_text().startswith("v2\n")

    out, err = io.StringIO(), io.StringIO()
    assert _cli.main(["offsets", "show", str(tmp_path / "checkpoint")], out=out, err=err) == 0, err.getvalue()
    for shard, seq in last.items():
        assert f"{stream}  {shard}  after {seq}" in out.getvalue(), out.getvalue()
