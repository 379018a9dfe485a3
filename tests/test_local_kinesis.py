# SPDX-License-Identifier: Apache-2.0
"""Tests of the kinesis fixture and the localstack/ scripts themselves."""

import os

import pytest

from kinesis_local import free_ports, start_local, stop_local
from streaming import read_shard


def test_put_records_reads_back_exactly(kinesis):
    stream = kinesis.create_stream(shards=3)
    try:
        payloads = [f"payload-{i}".encode() for i in range(50)]
        written = kinesis.put_records(stream, [(f"key-{i}", p) for i, p in enumerate(payloads)])
        assert len(written) == 50 and all(written)

        shards = [s["ShardId"] for s in kinesis.client.list_shards(StreamName=stream)["Shards"]]
        assert len(shards) == 3
        read = {}
        for shard in shards:
            for r in read_shard(kinesis.client, stream, shard):
                assert r["Data"] not in read, f"duplicate {r['Data']!r}"
                read[r["Data"]] = (shard, r["SequenceNumber"])

        assert sorted(read) == sorted(payloads)
        assert [read[p] for p in payloads] == written
        assert len({shard for shard, _ in written}) > 1  # 50 distinct keys spread over shards
    finally:
        kinesis.delete_stream(stream)


def test_stream_fixture_is_active(kinesis, stream):
    summary = kinesis.client.describe_stream_summary(StreamName=stream)["StreamDescriptionSummary"]
    assert summary["StreamStatus"] == "ACTIVE"
    assert summary["OpenShardCount"] == 2


def pid_gone(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    # Where PID 1 does not reap orphans a stopped server stays a zombie: gone all the same.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


@pytest.mark.skipif(bool(os.environ.get("KINESIS_ENDPOINT")), reason="uses the local kinesis-mock")
def test_stop_leaves_no_process(tmp_path):
    run_dir = tmp_path / "second"
    pid = start_local(run_dir, *free_ports(2))
    try:
        assert not pid_gone(pid)
        assert (run_dir / "kinesis.endpoint").read_text().startswith("http://127.0.0.1:")
    finally:
        stop_local(run_dir)
    assert pid_gone(pid)  # stop-kinesis.sh returns only once the process is gone
    assert not (run_dir / "kinesis.pid").exists()
    stop_local(run_dir)  # stopping twice is fine
