# SPDX-License-Identifier: Apache-2.0
"""Reliability: an executor JVM killed (SIGKILL) while a local-cluster query reads under faults.
The records it had prefetched are read again from Kinesis; the table must still hold every
record once, in order per key. The query runs in its own spark-submit (local-cluster needs
its own driver); the producer, the fault proxy and the comparison run here."""

import os
import signal
import time

import pytest
from harness import Producer, compare, reader_options, table_rows, wait_for
from results import record
from spark_app import App

from processes import executor_pids

RECORDS = 2000


@pytest.mark.reliability
@pytest.mark.reliability_full
@pytest.mark.parametrize("mode", ["polling", "efo"])
def test_an_executor_killed_under_faults_loses_repeats_and_reorders_nothing(
    mode, spark, kinesis, fault_proxy, tmp_path
):
    from faults import Fault

    if mode == "polling":
        fault_proxy.add(Fault.error("GetRecords", "ProvisionedThroughputExceededException", share=0.2))
        proof = ("GetRecords", "ProvisionedThroughputExceededException")
    else:
        fault_proxy.add(Fault.end_subscription_early(after_events=3, first=2))
        proof = ("SubscribeToShard", "end_early")
    stream = kinesis.create_stream(shards=4)
    out = tmp_path / "run" / "table"
    config = {
        "options": reader_options(fault_proxy.endpoint, kinesis.region, stream, mode, shardsPerTask="1"),
        "out": str(out),
        "checkpoint": str(tmp_path / "run" / "checkpoint"),
        "trigger": "micro-batch",
    }
    out.parent.mkdir()
    started, outcome, result, killed = time.monotonic(), "error", None, []
    producer = Producer(kinesis, stream, RECORDS)
    app = App(config, tmp_path / "app.log")
    try:
        wait_for(lambda: app.running() and app.started, 300, "the query to start")
        producer.start()
        wait_for(lambda: app.running() and app.rows >= RECORDS // 3, 300, "a third of the records")
        victims = executor_pids(app.process.pid)
        assert len(victims) == 2, f"expected two executor JVMs, found {victims}"
        os.kill(victims[0], signal.SIGKILL)
        killed.append(victims[0])
        producer.join()
        wait_for(lambda: app.running() and app.rows >= RECORDS, 300, "every record in the table")
        (out.parent / "STOP").write_text("stop")
        assert app.process.wait(timeout=120) == 0, f"the app failed; log in {app.log.name}"
        result = compare(producer.produced, table_rows(spark, out))
        outcome = "ok" if not (result.lost or result.duplicated or result.unexpected or result.order_errors) else "FAIL"
    finally:
        app.close()
        record(
            fault="executor killed + " + proof[1],
            mode=mode,
            trigger="micro-batch (local-cluster)",
            produced=len(producer.produced),
            read=result.read if result else "-",
            lost=result.lost if result else "-",
            duplicated=result.duplicated if result else "-",
            injected=fault_proxy.injected,
            seconds=time.monotonic() - started,
            result=outcome,
        )
        kinesis.delete_stream(stream)

    assert killed, "an executor was killed"
    assert result.lost == 0, f"{result.lost} records lost, e.g. {result.examples['lost']}"
    assert result.unexpected == 0 and result.duplicated == 0, f"{result.duplicated} records read twice"
    assert not result.order_errors, result.order_errors[:5]
    assert fault_proxy.injected[proof] > 0, dict(fault_proxy.injected)
