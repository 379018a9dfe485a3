# SPDX-License-Identifier: Apache-2.0
"""The source's gauges in Spark's metrics system, seen as users see them: through the
PrometheusServlet of the driver UI. Per shard and per stream, named by the query's id, with
sensible values while the queries run; a stopped query's gauges are gone, and
the other query's stay."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from streaming import make_records

APP = Path(__file__).parent / "apps" / "prometheus_metrics.py"


def gauges(text, query):
    """{metric name after the query's: value} of the kinesis gauges of `query` in the servlet's text."""
    found = re.findall(rf"metrics_\w+?_driver_kinesis_{query}_(\w+)_Value\{{type=\"gauges\"\}} (-?[\d.E]+)", text)
    return {metric: float(value) for metric, value in found}


def test_per_shard_lag_and_throughput_reach_prometheus_and_go_with_their_query(kinesis, tmp_path):
    stream = kinesis.create_stream(shards=2)
    records = make_records(40, "metrics")
    kinesis.put_records(stream, records)
    output = tmp_path / "scrapes.json"
    done = subprocess.run(
        [
            sys.executable,
            str(APP),
            stream,
            kinesis.endpoint,
            kinesis.region,
            "clicks_reader",
            str(len(records)),
            str(output),
        ],
        capture_output=True,
        text=True,
        timeout=420,
        env=dict(os.environ),
    )
    assert done.returncode == 0, f"the app failed:\n{done.stderr[-4000:]}"
    scrapes = json.loads(output.read_text())
    prefix = re.sub(r"\W", "_", stream)
    first, second = (query_id.replace("-", "_") for query_id in scrapes["query_ids"])

    for query in (first, second):
        shown = gauges(scrapes["running"], query)
        shards = {m.split("_fetchedRecords")[0] for m in shown if m.endswith("_fetchedRecords") and "_shardId_" in m}
        assert len(shards) == 2, f"{query}: not one set of gauges per shard of the 2-shard stream: {sorted(shown)}"
        for shard in shards:
            assert shown[f"{shard}_msBehindLatest"] >= 0, f"{query} {shard}: no lag known"
            assert shown[f"{shard}_fetchedBytes"] > 0, f"{query} {shard}: nothing read"
            for metric in ("prefetchedRecords", "prefetchedBytes"):
                assert shown[f"{shard}_{metric}"] >= 0
        assert sum(shown[f"{s}_fetchedRecords"] for s in shards) == len(records)
        assert shown[f"{prefix}_fetchedRecords"] == len(records), f"{query}: the stream's total"
        assert shown[f"{prefix}_trackedShards"] == 2
        assert shown[f"{prefix}_maxMsBehindLatest"] == max(shown[f"{s}_msBehindLatest"] for s in shards)

    assert not gauges(scrapes["one_stopped"], first), "the stopped query's gauges stayed"
    assert gauges(scrapes["one_stopped"], second), "stopping one query took the other's gauges"
    assert "_driver_kinesis_" not in scrapes["stopped"], "gauges stayed after every query stopped"
