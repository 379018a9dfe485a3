# SPDX-License-Identifier: Apache-2.0
"""Reliability of the sink under faults: a file stream of keyed records written with
writeStream.format("kinesis") through the fault proxy, then the stream read back with boto3
(aggregates split by aws-kinesis-agg). No record may be dropped. A record may be written twice
only when Kinesis stored it but the answer was lost (a connection reset after the call was
forwarded): at most the records of the calls so reset. Refusals (throttling, 500s, partial
failures, hangs) are never forwarded, so their retries must write nothing twice. Each key's
records must come back in the order written (first copies; the sink keeps order per partition
key by default): a batch is one file, so one task, and batches run one after the other. Every
run adds a row to results/latest.md."""

import json
import os
import time
from dataclasses import dataclass
from typing import Callable

import pytest
from pyspark.sql import functions as F
from results import record

from streaming import assert_first_copies_in_order, read_deaggregated, sink_metrics

THROTTLED = "ProvisionedThroughputExceededException"
RECORDS_PER_PUT = 100
# Enough keys that calls carry several records although each carries one per key (order per key).
KEYS = 50


@dataclass(frozen=True)
class SinkRow:
    fault: str
    trigger: str
    program: Callable  # program(proxy, Fault)
    proves: tuple
    fast: bool = False
    forwarded: tuple = ()  # injected kinds whose calls reached Kinesis before failing
    shards: int = 2
    files: int = 5  # one batch each
    per_file: int = 500
    options: tuple = ()  # sink options of the row, e.g. (("aggregation", "kpl"),)


ROWS = [
    SinkRow(
        "PutRecords throttled",
        "micro-batch",
        lambda p, Fault: p.add(Fault.error("PutRecords", THROTTLED, share=0.3)),
        (("PutRecords", THROTTLED),),
    ),
    SinkRow(
        "PutRecords throttled",
        "available-now",
        lambda p, Fault: p.add(Fault.error("PutRecords", THROTTLED, share=0.3)),
        (("PutRecords", THROTTLED),),
    ),
    SinkRow(
        "PutRecords partial failures",
        "available-now",
        lambda p, Fault: p.add(Fault.partial_put(share=0.1)),
        (("PutRecords", "partial"),),
        fast=True,
    ),
    SinkRow(
        "PutRecords partial failures",
        "micro-batch",
        lambda p, Fault: p.add(Fault.partial_put(share=0.1)),
        (("PutRecords", "partial"),),
    ),
    SinkRow(
        "PutRecords InternalFailure 500",
        "micro-batch",
        lambda p, Fault: p.add(Fault.error("PutRecords", "InternalFailure", share=0.2)),
        (("PutRecords", "InternalFailure"),),
    ),
    SinkRow(
        "PutRecords connection reset",
        "micro-batch",
        lambda p, Fault: p.add(Fault.reset("PutRecords", share=0.1)),
        (("PutRecords", "reset"),),
        forwarded=(("PutRecords", "reset"),),
    ),
    SinkRow(
        "PutRecords hangs 20 s",
        "available-now",
        lambda p, Fault: p.add(Fault.hang("PutRecords", seconds=20, first=1)),
        (("PutRecords", "hang"),),
    ),
    # One batch of 2500 records to one shard goes over its 1000 records/s when the local Kinesis
    # stores them fast enough; how fast depends on the machine, so refusals are reported, not required.
    SinkRow(
        "real per-shard limits (1 shard)",
        "available-now",
        lambda p, Fault: p.limits(True),
        (),
        shards=1,
        files=1,
        per_file=2500,
    ),
    # Aggregates are refused and retried whole; the rows inside keep their order.
    SinkRow(
        "PutRecords partial failures, KPL aggregates",
        "available-now",
        lambda p, Fault: p.add(Fault.partial_put(share=0.2)),
        (("PutRecords", "partial"),),
        options=(("aggregation", "kpl"), ("maxBytesPerPut", "4kb")),
        fast=True,
    ),
]


def params(rows):
    return [
        pytest.param(
            row,
            id=f"sink-{row.trigger}-{row.fault}".replace(" ", "_"),
            marks=[] if row.fast else [pytest.mark.reliability_full],
        )
        for row in rows
    ]


def write_input(directory, files, per_file):
    """JSON files of keyed records, n counting from 1 per key; returns the (key, n) pairs. The
    files' modification times are a second apart, so the file source takes them in order."""
    directory.mkdir()
    produced, counters, first = [], {}, time.time() - files
    for f in range(files):
        lines = []
        for i in range(per_file):
            key = f"k{(f * per_file + i) % KEYS}"
            counters[key] = counters.get(key, 0) + 1
            lines.append(json.dumps({"key": key, "n": counters[key]}))
            produced.append((key, counters[key]))
        path = directory / f"part-{f:03}.json"
        path.write_text("\n".join(lines) + "\n")
        os.utime(path, (first + f, first + f))
    return produced


@pytest.mark.reliability
@pytest.mark.parametrize("row", params(ROWS))
def test_writing_under_faults_drops_nothing_keeps_key_order_and_repeats_only_what_a_lost_answer_forced(
    row, spark, kinesis, fault_proxy, tmp_path
):
    from faults import Fault

    stream = kinesis.create_stream(shards=row.shards)
    produced = write_input(tmp_path / "input", row.files, row.per_file)
    row.program(fault_proxy, Fault)
    rows = (
        spark.readStream.schema("key string, n int")
        .option("maxFilesPerTrigger", 1)
        .json(str(tmp_path / "input"))
        .select(F.col("key").alias("partitionKey"), F.to_json(F.struct("key", "n")).alias("data"))
    )
    writer = (
        rows.writeStream.format("kinesis")
        .option("streamName", stream)
        .option("endpoint", fault_proxy.endpoint)
        .option("region", kinesis.region)
        .option("maxRecordsPerPut", RECORDS_PER_PUT)
        .option("putRetryBackoff", "50ms")
        .option("maxPutRetryBackoff", "1s")
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .options(**dict(row.options))
    )
    writer = (
        writer.trigger(availableNow=True)
        if row.trigger == "available-now"
        else writer.trigger(processingTime="1 second")
    )
    started, outcome, read, metrics = time.monotonic(), "error", None, {}
    try:
        query = writer.start()
        try:
            deadline = time.monotonic() + 300
            while query.isActive and sum(p["numInputRows"] for p in query.recentProgress) < len(produced):
                assert time.monotonic() < deadline, "the write did not finish"
                query.awaitTermination(1)
            if query.exception():
                raise query.exception()
        finally:
            query.stop()
        metrics = sink_metrics(query)
        read = [
            (body["key"], body["n"])
            for body in (json.loads(data) for _, _, data, _ in read_deaggregated(kinesis, stream))
        ]
        lost = len(set(produced) - set(read))
        duplicated = len(read) - len(set(read))
        outcome = "ok" if not lost and duplicated <= 0 else ("FAIL" if lost else "ok, duplicates forced")
    finally:
        mode = "sink" + "".join(f", {k}={v}" for k, v in row.options)
        record(
            fault=row.fault,
            mode=mode,
            trigger=row.trigger,
            produced=len(produced),
            read=len(read) if read is not None else "-",
            lost=lost if read is not None else "-",
            duplicated=duplicated if read is not None else "-",
            injected=fault_proxy.injected,
            seconds=time.monotonic() - started,
            result=outcome,
        )
        kinesis.delete_stream(stream)

    assert lost == 0, f"{lost} records dropped"
    assert set(read) == set(produced), "records nobody wrote"
    forced = sum(fault_proxy.injected[k] for k in row.forwarded) * RECORDS_PER_PUT
    assert duplicated <= forced, f"{duplicated} records written twice, but only {forced} had their answer lost"
    assert fault_proxy.calls["PutRecords"] > 0, "the writes did not go through the proxy"
    assert metrics["recordsWritten"] == len(produced) and metrics["failedRecords"] == 0, metrics
    assert_first_copies_in_order(read)
    for key in row.proves:
        assert fault_proxy.injected[key] > 0, f"the fault {key} was never injected: {dict(fault_proxy.injected)}"
