# SPDX-License-Identifier: Apache-2.0
"""Soak run, on demand (`make soak`), never in CI: one streaming query reads for a set time
while records are produced at a steady rate and the fault proxy injects a fault for part of
every period. Every --sample seconds it writes a row: records produced and read, lag, driver
heap, resident memory and threads of the driver and executor JVMs, executors' peak heap (Spark
REST API), the source's metrics (EFO subscriptions among them when reported) and what the proxy
injected. Leaks show as columns that keep growing. At the end it checks that every record was
read once. Results: benchmarks/results/soak-<time>.csv and soak-<time>-summary.md.

    python benchmarks/soak.py [--minutes 30] [--mode polling|efo] [--shards 4] [--rate 100]
        [--sample 10] [--fault-every 60] [--fault-seconds 30] [--master local-cluster[2,1,1024]]
"""

import argparse
import csv
import json
import sys
import tempfile
import threading
import time
import urllib.request
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "support"))
sys.path.insert(0, str(HERE.parent / "tests" / "reliability"))

from harness import Producer, reader_options  # noqa: E402

from faults import Fault, FaultProxy  # noqa: E402
from kinesis_local import kinesis_for_tests  # noqa: E402
from processes import executor_pids, proc_status  # noqa: E402

THROTTLED = "ProvisionedThroughputExceededException"
# One fault at a time, in turn: (name, program(proxy)).
FAULTS = {
    "polling": [
        ("GetRecords throttled", lambda p: p.add(Fault.error("GetRecords", THROTTLED, share=0.3))),
        ("GetRecords reset", lambda p: p.add(Fault.reset("GetRecords", share=0.05))),
        ("GetRecords 500", lambda p: p.add(Fault.error("GetRecords", "InternalFailure", share=0.2))),
        ("ExpiredIterator", lambda p: p.add(Fault.error("GetRecords", "ExpiredIteratorException", every=7))),
        ("GetRecords delayed", lambda p: p.add(Fault.delay("GetRecords", seconds=1, share=0.1))),
        ("ListShards limit", lambda p: p.add(Fault.error("ListShards", "LimitExceededException", share=0.3))),
    ],
    "efo": [
        ("cut mid-event", lambda p: p.add(Fault.cut_mid_event(share=0.5))),
        ("SubscribeToShard 500", lambda p: p.add(Fault.error("SubscribeToShard", "InternalFailure", share=0.3))),
        ("ResourceInUse", lambda p: p.add(Fault.error("SubscribeToShard", "ResourceInUseException", share=0.3))),
        ("ListShards limit", lambda p: p.add(Fault.error("ListShards", "LimitExceededException", share=0.3))),
    ],
}
# Always on in EFO mode, after the fault of the moment: a subscription stays open across batches
# and a SubscribeToShard fault fires only when the reader subscribes again, so every
# subscription ends after a few events and the reader keeps subscribing.


def churn(proxy, mode):
    if mode == "efo":
        proxy.add(Fault.end_subscription_early(after_events=10, share=1.0))


SOURCE_METRICS = [
    "fetchedRecords",
    "prefetchedRecords",
    "prefetchedBytes",
    "throttleEvents",
    "trackedShards",
    "liveSubscriptions",
    "resubscriptions",
]


def executors_peak_heap_mb(spark):
    """Sum over executors (not the driver) of peak JVM heap, as the Spark REST API reports it."""
    sc = spark.sparkContext
    try:
        url = f"{sc.uiWebUrl}/api/v1/applications/{sc.applicationId}/executors"
        executors = json.load(urllib.request.urlopen(url, timeout=10))
    except OSError:
        return ""
    heaps = [e.get("peakMemoryMetrics", {}).get("JVMHeapMemory") for e in executors if e["id"] != "driver"]
    heaps = [h for h in heaps if h is not None]
    return round(sum(heaps) / 2**20) if heaps else ""


class Reads:
    """The query's sink: every (key, n) read, counted once per batch id (a re-run batch replaces)."""

    def __init__(self):
        self.batches, self.lock = {}, threading.Lock()

    def sink(self, batch, batch_id):
        pairs = [
            (b["key"], b["n"])
            for b in (json.loads(r.data) for r in batch.selectExpr("CAST(data AS STRING) AS data").collect())
        ]
        with self.lock:
            self.batches[batch_id] = pairs

    def pairs(self):
        with self.lock:
            return [p for pairs in self.batches.values() for p in pairs]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--mode", choices=["polling", "efo"], default="efo")
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--rate", type=int, default=100, help="records produced per second")
    parser.add_argument("--sample", type=float, default=10, help="seconds between samples")
    parser.add_argument("--fault-every", type=float, default=60, help="seconds between fault starts")
    parser.add_argument("--fault-seconds", type=float, default=30, help="how long each fault stays on")
    parser.add_argument("--master", default="local-cluster[2,1,1024]")
    args = parser.parse_args()
    for name in ("minutes", "sample", "fault_every", "fault_seconds"):
        if getattr(args, name) <= 0:
            parser.error(f"--{name.replace('_', '-')} must be above 0")
    if args.rate < 1 or args.shards < 1:
        parser.error("--rate and --shards must be at least 1")

    results = HERE / "results"
    results.mkdir(exist_ok=True)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    csv_path, summary_path = results / f"soak-{stamp}.csv", results / f"soak-{stamp}-summary.md"

    with tempfile.TemporaryDirectory(prefix="soak-") as tmp, kinesis_for_tests(Path(tmp)) as kinesis:
        from pyspark.sql import SparkSession

        import pyspark_kinesis

        proxy = FaultProxy(upstream=kinesis.endpoint, seed=1)
        builder = (
            SparkSession.builder.master(args.master)
            .appName("kinesis-soak")
            .config("spark.ui.port", "0")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.shuffle.partitions", "2")
            .config("spark.executor.memory", "1g")
        )
        spark = pyspark_kinesis.configure(builder).getOrCreate()
        spark.sparkContext.setLogLevel("ERROR")
        jvm = spark.sparkContext._jvm
        assert jvm is not None
        driver_pid = int(jvm.java.lang.ProcessHandle.current().pid())
        runtime = jvm.java.lang.Runtime.getRuntime()

        stream = kinesis.create_stream(shards=args.shards)
        total = int(args.rate * args.minutes * 60)
        producer = Producer(kinesis, stream, total, rate=args.rate)
        reads = Reads()
        options = reader_options(proxy.endpoint, kinesis.region, stream, args.mode)
        faults = FAULTS[args.mode]
        faults[0][1](proxy)  # the first fault is on from the start
        churn(proxy, args.mode)
        active, rows = faults[0][0], []
        query = (
            spark.readStream.format("kinesis")
            .options(**options)
            .load()
            .writeStream.foreachBatch(reads.sink)
            .option("checkpointLocation", f"{tmp}/checkpoint")
            .trigger(processingTime="1 second")
            .start()
        )
        producer.start()
        started = time.monotonic()
        columns = [
            "seconds",
            "fault",
            "produced",
            "read",
            "lag",
            "driverHeapUsedMB",
            "driverRssMB",
            "driverThreads",
            "executors",
            "executorsRssMB",
            "executorsThreads",
            "executorsPeakHeapMB",
            *SOURCE_METRICS,
            "injected",
        ]
        with open(csv_path, "w", newline="") as f:
            writer = csv.DictWriter(f, columns)
            writer.writeheader()
            try:
                while time.monotonic() - started < args.minutes * 60:
                    time.sleep(args.sample)
                    error = query.exception()
                    if error:
                        raise error
                    elapsed = time.monotonic() - started
                    period, into = divmod(elapsed, args.fault_every)
                    name, program = faults[int(period) % len(faults)]
                    wanted = name if into < args.fault_seconds else ""
                    if wanted != active:
                        proxy.clear()
                        if wanted:
                            program(proxy)
                        churn(proxy, args.mode)
                        active = wanted
                    rss, threads = proc_status(driver_pid)
                    executors = [proc_status(p) for p in executor_pids(driver_pid)]
                    progress = query.lastProgress
                    metrics = ((progress.get("sources") if progress else None) or [{}])[0].get("metrics") or {}
                    read = len(reads.pairs())
                    row = {
                        "seconds": round(elapsed),
                        "fault": active or "-",
                        "produced": len(producer.produced),
                        "read": read,
                        "lag": len(producer.produced) - read,
                        "driverHeapUsedMB": round((runtime.totalMemory() - runtime.freeMemory()) / 2**20),
                        "driverRssMB": round(rss),
                        "driverThreads": threads,
                        "executors": len(executors),
                        "executorsRssMB": round(sum(r for r, _ in executors)),
                        "executorsThreads": sum(t for _, t in executors),
                        "executorsPeakHeapMB": executors_peak_heap_mb(spark),
                        **{m: metrics.get(m, "") for m in SOURCE_METRICS},
                        "injected": sum(proxy.injected.values()),
                    }
                    writer.writerow(row)
                    f.flush()
                    rows.append(row)
                    print(" ".join(f"{k}={v}" for k, v in row.items()), flush=True)
                proxy.clear()  # the rest arrives without faults
                producer.stop()  # the time is up, even where the local Kinesis fell behind the rate
                producer.join(timeout=120)
                deadline = time.monotonic() + 180
                while len(set(reads.pairs())) < len(producer.produced) and time.monotonic() < deadline:
                    time.sleep(2)
                time.sleep(5)
            finally:
                query.stop()
        pairs = reads.pairs()
        lost = len(set(producer.produced) - set(pairs))
        duplicated = len(pairs) - len(set(pairs))
        injected = dict(proxy.injected)
        spark.stop()
        proxy.close()

    write_summary(summary_path, args, rows, len(producer.produced), len(pairs), lost, duplicated, injected)
    print(summary_path.read_text())
    print(f"samples: {csv_path}")
    return 0 if not lost and not duplicated else 1


def write_summary(path, args, rows, produced, read, lost, duplicated, injected):
    """Totals, and first against last quarter of the samples for the columns a leak would grow."""
    quarter = max(1, len(rows) // 4)

    def mean(sample, column):
        values = [r[column] for r in sample if r[column] != ""]
        return round(sum(values) / len(values)) if values else "-"

    growth = "\n".join(
        f"| {c} | {mean(rows[:quarter], c)} | {mean(rows[-quarter:], c)} |"
        for c in [
            "driverHeapUsedMB",
            "driverRssMB",
            "driverThreads",
            "executorsRssMB",
            "executorsThreads",
            "executorsPeakHeapMB",
            "lag",
        ]
    )
    path.write_text(
        f"# Soak run {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC\n\n"
        f"{args.minutes} min, mode {args.mode}, {args.shards} shards, {args.rate} records/s, master {args.master}, "
        f"a fault on for {args.fault_seconds} s every {args.fault_every} s.\n\n"
        f"Produced {produced}, read {read}, lost {lost}, duplicated {duplicated}.\n\n"
        f"Injected: {', '.join(f'{op} {kind}: {n}' for (op, kind), n in sorted(injected.items())) or 'nothing'}\n\n"
        f"| column | first quarter (mean) | last quarter (mean) |\n|---|---|---|\n{growth}\n"
    )


if __name__ == "__main__":
    sys.exit(main())
