# SPDX-License-Identifier: Apache-2.0
"""Reliability under faults: for polling and EFO, micro-batch and available-now, each
fault kind injected by the fault proxy while a few thousand keyed records are produced and
read into a Parquet table; the table must then hold every record once, in order per key.

Rows marked reliability_full run only in `make test-reliability`; the others also in
`make test`. Every run adds a row to results/latest.md."""

import time
from dataclasses import dataclass
from typing import Callable, Optional

import pytest
from harness import Producer, Resharder, compare, read_while_producing, reader_options, table_rows
from results import record

THROTTLED = "ProvisionedThroughputExceededException"


@dataclass(frozen=True)
class Row:
    fault: str
    mode: str  # polling | efo
    trigger: str  # micro-batch | available-now
    program: Optional[Callable] = None  # program(proxy, Fault): adds the faults
    proves: tuple = ()  # (operation, kind) pairs of proxy.injected that must be > 0
    fast: bool = False  # also in `make test`
    shards: int = 2
    records: int = 2000
    restart: bool = False  # stop the query mid-run, start it again from the checkpoint
    reshard: bool = False  # split then merge shards while it runs
    aggregated: bool = False  # records produced as KPL aggregates


# A reader opens few subscriptions (one per shard, kept across batches) and few iterators, so
# faults on those calls pick the first ones: a random share could pick none.
def errors(operation, code, **selector):
    return lambda proxy, Fault: proxy.add(Fault.error(operation, code, **selector))


def limits(proxy, Fault):
    proxy.limits(True)


def reshard_faults(proxy, Fault):
    proxy.add(Fault.error("GetRecords", THROTTLED, share=0.2))
    proxy.add(Fault.reset("GetRecords", share=0.05))
    proxy.add(Fault.error("ListShards", "InternalFailure", share=0.2))


def efo_reshard_faults(proxy, Fault):
    proxy.add(Fault.end_subscription_early(after_events=3, first=2))
    proxy.add(Fault.error("ListShards", "LimitExceededException", share=0.2))


POLLING = [
    Row(
        "GetRecords throttled",
        "polling",
        "micro-batch",
        errors("GetRecords", THROTTLED, share=0.3),
        (("GetRecords", THROTTLED),),
        fast=True,
    ),
    Row(
        "GetRecords throttled",
        "polling",
        "available-now",
        errors("GetRecords", THROTTLED, share=0.3),
        (("GetRecords", THROTTLED),),
    ),
    Row(
        "GetRecords LimitExceeded",
        "polling",
        "micro-batch",
        errors("GetRecords", "LimitExceededException", share=0.2),
        (("GetRecords", "LimitExceededException"),),
    ),
    Row(
        "GetRecords InternalFailure 500",
        "polling",
        "micro-batch",
        errors("GetRecords", "InternalFailure", share=0.2),
        (("GetRecords", "InternalFailure"),),
    ),
    Row(
        "GetRecords InternalFailure 500",
        "polling",
        "available-now",
        errors("GetRecords", "InternalFailure", share=0.2),
        (("GetRecords", "InternalFailure"),),
    ),
    Row(
        "ExpiredIterator",
        "polling",
        "micro-batch",
        errors("GetRecords", "ExpiredIteratorException", every=7),
        (("GetRecords", "ExpiredIteratorException"),),
    ),
    Row(
        "ExpiredIterator",
        "polling",
        "available-now",
        errors("GetRecords", "ExpiredIteratorException", every=7),
        (("GetRecords", "ExpiredIteratorException"),),
        fast=True,
    ),
    Row(
        "GetShardIterator throttled",
        "polling",
        "micro-batch",
        errors("GetShardIterator", THROTTLED, first=2),
        (("GetShardIterator", THROTTLED),),
    ),
    Row(
        "GetRecords delayed 2 s",
        "polling",
        "micro-batch",
        lambda p, Fault: p.add(Fault.delay("GetRecords", seconds=2, share=0.1)),
        (("GetRecords", "delay"),),
    ),
    Row(
        "GetRecords connection reset",
        "polling",
        "micro-batch",
        lambda p, Fault: p.add(Fault.reset("GetRecords", share=0.05)),
        (("GetRecords", "reset"),),
    ),
    Row(
        "GetRecords connection reset",
        "polling",
        "available-now",
        lambda p, Fault: p.add(Fault.reset("GetRecords", share=0.05)),
        (("GetRecords", "reset"),),
    ),
    Row(
        "GetRecords hangs 20 s",
        "polling",
        "micro-batch",
        lambda p, Fault: p.add(Fault.hang("GetRecords", seconds=20, first=2)),
        (("GetRecords", "hang"),),
    ),
    Row(
        "ListShards failures",
        "polling",
        "micro-batch",
        lambda p, Fault: (
            p.add(Fault.error("ListShards", "InternalFailure", first=2)),
            p.add(Fault.error("ListShards", "LimitExceededException", share=0.3)),
        ),
        (("ListShards", "InternalFailure"),),
    ),
    Row("real per-shard limits", "polling", "micro-batch", limits, ()),
    Row("real per-shard limits", "polling", "available-now", limits, ()),
    Row(
        "driver restart + throttling",
        "polling",
        "micro-batch",
        errors("GetRecords", THROTTLED, share=0.2),
        (("GetRecords", THROTTLED),),
        restart=True,
    ),
    Row(
        "driver restart + throttling",
        "polling",
        "available-now",
        errors("GetRecords", THROTTLED, share=0.2),
        (("GetRecords", THROTTLED),),
        restart=True,
    ),
    Row(
        "reshard + throttling, resets, ListShards 500",
        "polling",
        "micro-batch",
        reshard_faults,
        (("GetRecords", THROTTLED),),
        reshard=True,
    ),
]

EFO = [
    Row(
        "subscription ended early",
        "efo",
        "micro-batch",
        lambda p, Fault: p.add(Fault.end_subscription_early(after_events=3, first=2)),
        (("SubscribeToShard", "end_early"),),
        fast=True,
    ),
    # An available-now run's subscriptions see few events before the run ends.
    Row(
        "subscription ended early",
        "efo",
        "available-now",
        lambda p, Fault: p.add(Fault.end_subscription_early(after_events=1, first=2)),
        (("SubscribeToShard", "end_early"),),
    ),
    Row(
        "cut mid-event",
        "efo",
        "micro-batch",
        lambda p, Fault: p.add(Fault.cut_mid_event(first=2)),
        (("SubscribeToShard", "cut_mid_event"),),
    ),
    Row(
        "ResourceInUse on subscribe",
        "efo",
        "micro-batch",
        errors("SubscribeToShard", "ResourceInUseException", first=2),
        (("SubscribeToShard", "ResourceInUseException"),),
    ),
    Row(
        "SubscribeToShard InternalFailure 500",
        "efo",
        "available-now",
        errors("SubscribeToShard", "InternalFailure", first=2),
        (("SubscribeToShard", "InternalFailure"),),
    ),
    Row("real per-shard limits", "efo", "micro-batch", limits, ()),
    Row(
        "driver restart + ended early",
        "efo",
        "micro-batch",
        lambda p, Fault: p.add(Fault.end_subscription_early(after_events=3, first=2)),
        (("SubscribeToShard", "end_early"),),
        restart=True,
    ),
    Row(
        "reshard + ended early, ListShards limit",
        "efo",
        "micro-batch",
        efo_reshard_faults,
        (("SubscribeToShard", "end_early"),),
        reshard=True,
    ),
]

BASELINE = [Row("none (baseline)", "polling", "micro-batch"), Row("none (baseline)", "efo", "available-now")]


def reset_and_throttled_reads(proxy, Fault):
    proxy.add(Fault.error("GetRecords", THROTTLED, share=0.3))
    proxy.add(Fault.reset("GetRecords", share=0.05))


# KPL aggregates under faults: every user record once, in order per key, also when batches end
# inside aggregates (a small maxRecordsPerFetch) and across a restart. make test reads
# aggregates through a restart and a re-run in tests/test_kpl.py; these rows add the faults.
KPL = [
    Row(
        "KPL aggregates, GetRecords throttled and reset, restart",
        "polling",
        "micro-batch",
        reset_and_throttled_reads,
        (("GetRecords", THROTTLED),),
        restart=True,
        aggregated=True,
    ),
    Row(
        "KPL aggregates, subscriptions cut mid-event",
        "efo",
        "micro-batch",
        lambda p, Fault: p.add(Fault.cut_mid_event(after_events=2, first=2)),
        (("SubscribeToShard", "cut_mid_event"),),
        aggregated=True,
    ),
]


def params(rows):
    return [
        pytest.param(
            row,
            id=f"{row.mode}-{row.trigger}-{row.fault}".replace(" ", "_"),
            marks=[] if row.fast else [pytest.mark.reliability_full],
        )
        for row in rows
    ]


@pytest.mark.reliability
@pytest.mark.parametrize("row", params(BASELINE + POLLING + EFO + KPL))
def test_reading_under_faults_loses_repeats_and_reorders_nothing(row, spark, kinesis, tmp_path, request):
    proxy = request.getfixturevalue("fault_proxy") if row.program else None
    stream = kinesis.create_stream(shards=row.shards)
    if proxy:
        from faults import Fault

        row.program(proxy, Fault)
    extra = {"maxRecordsPerFetch": "7"} if row.aggregated else {}
    options = reader_options(proxy.endpoint if proxy else kinesis.endpoint, kinesis.region, stream, row.mode, **extra)
    out = tmp_path / "table"
    during = Resharder(kinesis, stream, row.records) if row.reshard else None
    started = time.monotonic()
    producer = Producer(kinesis, stream, row.records, aggregate=row.aggregated)
    outcome, result = "error", None
    try:
        read_while_producing(
            spark,
            producer,
            options,
            out,
            tmp_path / "checkpoint",
            row.trigger,
            restart_at=0.4 if row.restart else None,
            during=during,
        )
        producer.join()
        result = compare(producer.produced, table_rows(spark, out))
        outcome = "ok" if not (result.lost or result.duplicated or result.unexpected or result.order_errors) else "FAIL"
    finally:
        record(
            fault=row.fault,
            mode=row.mode,
            trigger=row.trigger,
            produced=len(producer.produced),
            read=result.read if result else "-",
            lost=result.lost if result else "-",
            duplicated=result.duplicated if result else "-",
            injected=proxy.injected if proxy else {},
            seconds=time.monotonic() - started,
            result=outcome,
        )
        kinesis.delete_stream(stream)

    assert result.produced == row.records
    assert result.lost == 0, f"{result.lost} records lost, e.g. {result.examples['lost']}"
    assert result.unexpected == 0, f"records nobody produced: {result.examples['unexpected']}"
    assert result.duplicated == 0, f"{result.duplicated} records read twice"
    assert not result.order_errors, result.order_errors[:5]
    if proxy:
        read_call = "SubscribeToShard" if row.mode == "efo" else "GetRecords"
        assert proxy.calls[read_call] > 0, f"the reads did not go through the proxy: {dict(proxy.calls)}"
    for key in row.proves:
        assert proxy is not None, "a row that proves a fault runs behind the fault proxy"
        assert proxy.injected[key] > 0, f"the fault {key} was never injected: {dict(proxy.injected)}"
    if during is not None:
        assert during.done == ["split", "merge"], "the reshard happened while the query ran"
