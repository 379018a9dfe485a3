# SPDX-License-Identifier: Apache-2.0
"""Reliability: spark.speculation=true, as the Databricks documentation recommends, with tasks
made slow by the fault proxy (delayed GetRecords answers or SubscribeToShard calls): Spark
runs a second copy of a slow prefetch or batch task on another executor while the first runs
on. The table must still hold every record once, in order per key; with enhanced fan-out the
proxy enforces Kinesis' one subscription per shard and consumer, so two copies of a prefetch
task meet ResourceInUse, which must not break the query.

The query runs in its own spark-submit on a standalone cluster whose two workers have hosts of
their own (standalone.py); Spark's event log shows the speculative copies that ran."""

import json
import time

import pytest
from harness import Producer, compare, reader_options, table_rows, wait_for
from results import record
from spark_app import App
from standalone import standalone_cluster

RECORDS = 1200

SPECULATION = {
    "spark.speculation": "true",
    "spark.speculation.interval": "100ms",
    "spark.speculation.quantile": "0.5",
    "spark.speculation.multiplier": "1.5",
    "spark.speculation.minTaskRuntime": "500ms",
    # A stage of no more tasks than an executor has cores (a prefetch round of one task) has no
    # median to compare with: its task is copied once it ran this long.
    "spark.speculation.task.duration.threshold": "2s",
    # Prefetch tasks prefer the executor that holds their shard's reader; without a wait for
    # it, a copy may start on the other host while the first attempt still runs.
    "spark.locality.wait": "0",
    "spark.driver.host": "127.0.0.1",
    "spark.driver.bindAddress": "127.0.0.1",
    "spark.executor.memory": "1g",
    "spark.eventLog.enabled": "true",
    "spark.eventLog.compress": "false",
    "spark.eventLog.rolling.enabled": "false",
}


def speculative_tasks(event_dir):
    """(speculative task attempts started, of which of prefetch tasks), from the event log: a
    prefetch round's job runs in the job group kinesis-prefetch-<query>."""
    prefetch_stages, speculative = set(), []
    for log in (path for path in event_dir.rglob("*") if path.is_file()):
        for line in log.read_text().splitlines():
            event = json.loads(line)
            if event["Event"] == "SparkListenerJobStart":
                group = (event.get("Properties") or {}).get("spark.jobGroup.id") or ""
                if group.startswith("kinesis-prefetch-"):
                    prefetch_stages.update(event["Stage IDs"])
            elif event["Event"] == "SparkListenerTaskStart" and event["Task Info"]["Speculative"]:
                speculative.append(event["Stage ID"])
    return len(speculative), sum(stage in prefetch_stages for stage in speculative)


@pytest.mark.reliability
@pytest.mark.reliability_full
@pytest.mark.parametrize("mode", ["polling", "efo"])
def test_speculative_copies_of_slow_tasks_lose_repeat_and_reorder_nothing(mode, spark, kinesis, fault_proxy, tmp_path):
    from faults import Fault

    fault_proxy.limits(True)  # Kinesis' limits: one subscription per shard and consumer, 5 reads/s per shard
    if mode == "polling":
        fault_proxy.add(Fault.delay("GetRecords", 3.0, every=6))
        slow = ("GetRecords", "delay")
    else:
        # The first fault that fires wins: every third subscription is slow, the others end early.
        fault_proxy.add(Fault.delay("SubscribeToShard", 3.0, every=3))
        fault_proxy.add(Fault.end_subscription_early(after_events=4, every=1))
        slow = ("SubscribeToShard", "delay")
    stream = kinesis.create_stream(shards=4)
    out = tmp_path / "run" / "table"
    out.parent.mkdir()
    events = tmp_path / "events"
    events.mkdir()
    config = {
        "options": reader_options(fault_proxy.endpoint, kinesis.region, stream, mode, shardsPerTask="1"),
        "out": str(out),
        "checkpoint": str(tmp_path / "run" / "checkpoint"),
        "trigger": "micro-batch",
    }
    started, outcome, result = time.monotonic(), "error", None
    producer = Producer(kinesis, stream, RECORDS)
    with standalone_cluster(tmp_path / "cluster") as master:
        app = App(
            config, tmp_path / "app.log", master=master, confs={**SPECULATION, "spark.eventLog.dir": events.as_uri()}
        )
        try:
            wait_for(lambda: app.running() and app.started, 300, "the query to start")
            producer.start()
            producer.join()
            wait_for(lambda: app.running() and app.rows >= RECORDS, 300, "every record in the table")
            (out.parent / "STOP").write_text("stop")
            assert app.process.wait(timeout=120) == 0, f"the app failed; log in {app.log.name}"
            result = compare(producer.produced, table_rows(spark, out))
            outcome = (
                "ok" if not (result.lost or result.duplicated or result.unexpected or result.order_errors) else "FAIL"
            )
        finally:
            app.close()
            copies, prefetch_copies = speculative_tasks(events)
            record(
                fault=f"speculation ({copies} copies, {prefetch_copies} of prefetch tasks) + " + slow[0] + " delay",
                mode=mode,
                trigger="micro-batch (standalone, 2 hosts)",
                produced=len(producer.produced),
                read=result.read if result else "-",
                lost=result.lost if result else "-",
                duplicated=result.duplicated if result else "-",
                injected=fault_proxy.injected,
                seconds=time.monotonic() - started,
                result=outcome,
            )
            kinesis.delete_stream(stream)

    assert prefetch_copies > 0, "Spark ran no speculative copy of a prefetch task"
    assert fault_proxy.injected[slow] > 0, dict(fault_proxy.injected)
    if mode == "efo":  # two copies of a prefetch task subscribed to one shard with one consumer
        assert fault_proxy.injected[("SubscribeToShard", "limit")] > 0, dict(fault_proxy.injected)
    assert result.lost == 0, f"{result.lost} records lost, e.g. {result.examples['lost']}"
    assert result.unexpected == 0 and result.duplicated == 0, f"{result.duplicated} records read twice"
    assert not result.order_errors, result.order_errors[:5]
