# SPDX-License-Identifier: Apache-2.0
"""The generator: a seed draws one run, a topology, a workload and a schedule of faults. The
same seed always draws the same run, so a failure replays from its seed alone."""

import random
from dataclasses import dataclass, replace
from typing import Optional

from chaos_nemesis import CATALOG

TRIGGERS = ("available-now", "micro-batch", "real-time")
MIB = 1024 * 1024
# Kinesis takes records of up to 10 MiB on a stream raised to them (MaxRecordSizeInKiB). The
# local Kinesis (kinesis-mock) serves about 2 MiB a second and, on a loaded machine, may not
# answer a put of a record of 5 MiB or more within minutes: a run draws two records of at most
# 3 MiB (tests/test_large_records.py reads records of 10 MiB from the benchmark Kinesis).
LARGE_RECORD_BYTES = (2 * MIB, 3 * MIB)


@dataclass(frozen=True)
class Run:
    seed: int
    shards: int  # of the source stream
    records: int
    rate: int  # records/s the producer puts while the query reads
    payload: str  # plain | kpl (aggregates of one shard's keys) | mixed (aggregates of any keys)
    pad_every: int  # every n-th record padded to pad_bytes (0: none)
    pad_bytes: int
    mode: str  # polling | efo
    trigger: str  # one of TRIGGERS
    sink: str  # table (foreachBatch into Parquet) | kinesis (the sink; the foreach writer in real time)
    record_ids: bool  # the sink tags rows with ids (kinesis sink only)
    target_shards: int
    shards_per_task: int
    fetch_buffer: Optional[str]  # fetchBufferSize, None for the default
    faults: tuple  # names of chaos_nemesis.CATALOG
    restart_at: Optional[float]  # share of the records read when the query is stopped and started again
    reshard: bool  # split then merge source shards while the query reads
    fail_on_data_loss: bool = True  # the failOnDataLoss option (drawn with the faults at a restart)
    cluster: bool = False  # the query runs by spark-submit on a local-cluster (chaos_cluster), not in this session

    def describe(self):
        parts = [
            f"seed {self.seed}: {self.shards} shards, {self.records} {self.payload} records",
            f"every {self.pad_every}th of {self.pad_bytes} bytes" if self.pad_every else "",
            f"{self.mode}, {self.trigger}, sink {self.sink}" + (" with recordIds" if self.record_ids else ""),
            f"shardsPerTask {self.shards_per_task}" if self.trigger != "real-time" else "",
            f"fetchBufferSize {self.fetch_buffer}" if self.fetch_buffer else "",
            f"faults {', '.join(self.faults) or 'none'}",
            f"restart at {self.restart_at:.0%}" if self.restart_at else "",
            "reshard" if self.reshard else "",
            "" if self.fail_on_data_loss else "failOnDataLoss false",
            "in a local-cluster of its own" if self.cluster else "",
        ]
        return "; ".join(p for p in parts if p)


def draw(seed):
    rng = random.Random(seed)
    trigger = rng.choice(TRIGGERS)
    # Real-time mode writes through the foreach writer only (Spark checks its sinks).
    sink = "kinesis" if trigger == "real-time" else rng.choice(("table", "table", "kinesis"))
    mode = rng.choice(("polling", "efo"))
    padded = rng.random() < 0.2
    applicable = sorted(
        name
        for name, fault in CATALOG.items()
        if fault.applies(mode, trigger, sink) and not (fault.at_restart or fault.signs_as or fault.cluster_only)
    )
    # Real-time mode reads every open shard in a task of its own for the whole batch: the test
    # session's local[2] has two slots (more open shards fail, as documented, with
    # KINESIS_REAL_TIME_NOT_ENOUGH_SLOTS), and a split of one of two shards would make three.
    shards = rng.choice((1, 2)) if trigger == "real-time" else rng.choice((1, 1, 2, 2, 3, 4, 4, 6, 8, 16))
    reshard = rng.random() < 0.25 and (trigger != "real-time" or shards == 1)
    run = Run(
        seed=seed,
        shards=shards,
        records=rng.randrange(200, 1201, 50),
        rate=rng.choice((200, 400, 800)),
        payload=rng.choice(("plain", "plain", "kpl", "mixed")),
        pad_every=rng.choice((10, 25)) if padded else 0,
        pad_bytes=rng.choice((20_000, 100_000, 200_000)) if padded else 0,
        mode=mode,
        trigger=trigger,
        sink=sink,
        record_ids=sink == "kinesis" and rng.random() < 0.7,
        target_shards=rng.choice((1, 2, 4)),
        shards_per_task=rng.choice((1, 2, 5)),
        fetch_buffer=rng.choice((None, None, "1mb", "8mb")) if trigger != "real-time" else None,
        faults=tuple(rng.sample(applicable, k=rng.randint(0, min(3, len(applicable))))),
        restart_at=rng.choice((None, 0.3, 0.6)),
        reshard=reshard,
    )
    # Drawn apart, so that adding them left every other seed's run as it was. Plain records
    # only: the KPL packs at most 1 MiB in an aggregate.
    large = random.Random(f"{seed}-large")
    if run.pad_every and run.payload == "plain" and large.random() < 0.7:
        run = replace(run, pad_bytes=large.choice(LARGE_RECORD_BYTES), pad_every=run.records // 2)
    # The faults done while the query is stopped for its restart, drawn apart for the same reason.
    restart = random.Random(f"{seed}-restart")
    if run.restart_at:
        at_restart = sorted(
            name for name, fault in CATALOG.items() if fault.at_restart and fault.applies(mode, trigger, sink)
        )
        drawn = tuple(name for name in at_restart if restart.random() < 0.3)
        if drawn:
            run = replace(run, faults=run.faults + drawn, fail_on_data_loss=restart.random() < 0.5)
    # Credentials that expire while the query reads, drawn apart for the same reason.
    if random.Random(f"{seed}-credentials").random() < 0.25:
        run = replace(run, faults=run.faults + ("credentials expiring",))
    # A query in a JVM of its own, where an executor or the driver is killed (micro-batches
    # into the table), drawn apart for the same reason.
    placement = random.Random(f"{seed}-placement")
    if trigger == "micro-batch" and sink == "table" and placement.random() < 0.35:
        kills = placement.choice((("executor killed",), ("driver killed",), ("executor killed", "driver killed")))
        run = replace(run, cluster=True, faults=run.faults + kills)
    return run
