# SPDX-License-Identifier: Apache-2.0
"""Reliability of real-time mode: a local-cluster real-time query (its own spark-submit) loses
an executor mid-batch, then its driver is killed (SIGKILL) and started again on the same
checkpoint. Records arrive throughout. Every record put reaches the foreach sink, none that
nobody put; a record delivered again (by the task re-run after the executor loss, or by the
batch the driver crash cut short, which runs again) carries the same data."""

import json
import os
import signal
import time
from pathlib import Path

import pytest
from harness import reader_options, wait_for
from realtime import deliveries
from spark_app import App

from processes import executor_pids

APP = Path(__file__).parent / "apps" / "realtime_into_files.py"
MASTER = "local-cluster[2,2,1024]"  # two executors of two slots: each holds one shard's task


@pytest.mark.reliability
@pytest.mark.reliability_full
@pytest.mark.parametrize("mode", ["polling", "efo"])
def test_a_killed_executor_and_a_killed_driver_lose_nothing(mode, kinesis, tmp_path):
    stream = kinesis.create_stream(shards=2)
    sink = tmp_path / "run" / "sink"
    sink.mkdir(parents=True)
    options = reader_options(kinesis.endpoint, kinesis.region, stream, mode)
    options.pop("maxFetchDuration")  # refused in real-time mode: nothing is prefetched
    config = {"options": options, "sink": str(sink), "checkpoint": str(tmp_path / "run" / "checkpoint")}
    put = []

    def put_some(tag, n=40):
        put.extend(
            seq
            for _, seq in kinesis.put_records(
                stream, [(f"{tag}-{i}", json.dumps({"tag": tag, "i": i}).encode()) for i in range(n)]
            )
        )

    def all_delivered():
        return set(put) <= {r["seq"] for r in deliveries(sink)}

    app = App(config, tmp_path / "app-1.log", app=APP, master=MASTER)
    try:
        wait_for(lambda: app.running() and app.started, 300, "the query to start")
        put_some("before-executor-loss")
        wait_for(lambda: app.running() and all_delivered(), 120, "the first records")
        victims = executor_pids(app.process.pid)
        assert len(victims) == 2, f"expected two executor JVMs, found {victims}"
        os.kill(victims[0], signal.SIGKILL)
        put_some("after-executor-loss")
        wait_for(lambda: app.running() and all_delivered(), 180, "the records put after the executor loss")
        put_some("before-driver-crash")
        time.sleep(1)
        app.process.kill()  # the driver dies mid-batch, whatever it had delivered
        app.process.wait(30)
    finally:
        app.close()
    put_some("while-the-driver-is-down")

    app = App(config, tmp_path / "app-2.log", app=APP, master=MASTER)
    try:
        wait_for(lambda: app.running() and all_delivered(), 300, "every record after the restart")
        (sink.parent / "STOP").write_text("stop")
        assert app.process.wait(timeout=120) == 0, f"the app failed; log in {app.log.name}"
    finally:
        app.close()
        kinesis.delete_stream(stream)

    rows = deliveries(sink)
    data = {}
    for r in rows:
        data.setdefault(r["seq"], set()).add(r["data"])
    assert set(data) == set(put), "every record put was delivered, and nothing else"
    assert all(len(d) == 1 for d in data.values()), "a sequence number delivered twice carries the same record"
