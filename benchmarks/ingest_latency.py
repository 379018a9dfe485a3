# SPDX-License-Identifier: Apache-2.0
"""Benchmark, run on demand (`make bench`), never in CI: records/s ingested and end-to-end
latency (put to visible in the sink, p50/p99) against the local Kinesis, for a few shard
counts, in one run. Results go to benchmarks/results/ as JSON and are printed.

The local Kinesis (kinesis-mock) is slow (a few thousand records/s at best) and the machine
is shared: compare figures of one run with each other, not across machines.

    python benchmarks/ingest_latency.py [--shards 1 4 8] [--records 4000] [--rate 1000]
"""

import argparse
import json
import platform
import statistics
import sys
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "support"))

from kinesis_local import kinesis_for_tests  # noqa: E402


def percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def measure(spark, kinesis, shards, records, rate, workdir):
    stream = kinesis.create_stream(shards=shards)
    latencies, seen, done = [], [0], threading.Event()
    lock = threading.Lock()

    def sink(batch, batch_id):
        arrived = time.time()
        put_times = [float(r.body) for r in batch.selectExpr("CAST(data AS STRING) AS body").collect()]
        with lock:
            latencies.extend(arrived - t for t in put_times)
            seen[0] += len(put_times)
            if seen[0] >= records:
                done.set()

    df = (
        spark.readStream.format("kinesis")
        .option("streamName", stream)
        .option("endpoint", kinesis.endpoint)
        .option("region", kinesis.region)
        .option("initialPosition", "trim_horizon")
        .option("maxFetchDuration", "200ms")
        .option("minFetchPeriod", "200ms")
        .option("maxFetchRate", "2.0")
        .load()
    )
    query = (
        df.writeStream.foreachBatch(sink).option("checkpointLocation", str(workdir / f"checkpoint-{shards}")).start()
    )
    time.sleep(3)  # the query is up and polling
    started = time.time()
    batch = max(1, rate // 10)
    for i in range(0, records, batch):
        n = min(batch, records - i)
        kinesis.put_records(stream, [(f"k{i + j}", repr(time.time()).encode()) for j in range(n)])
        time.sleep(max(0.0, n / rate - 0.0))
    produced_in = time.time() - started
    finished = done.wait(600)
    elapsed = time.time() - started
    query.stop()
    kinesis.delete_stream(stream)
    return {
        "shards": shards,
        "records": records,
        "target_rate": rate,
        "complete": finished,
        "records_read": seen[0],
        "produce_seconds": round(produced_in, 2),
        "ingest_records_per_s": round(seen[0] / elapsed, 1),
        "latency_p50_s": round(percentile(latencies, 50), 3) if latencies else None,
        "latency_p99_s": round(percentile(latencies, 99), 3) if latencies else None,
        "latency_mean_s": round(statistics.mean(latencies), 3) if latencies else None,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shards", type=int, nargs="+", default=[1, 4, 8])
    parser.add_argument("--records", type=int, default=4000)
    parser.add_argument("--rate", type=int, default=1000, help="records put per second")
    args = parser.parse_args()

    from pyspark.sql import SparkSession

    import pyspark_kinesis

    results_dir = HERE / "results"
    results_dir.mkdir(exist_ok=True)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    workdir = results_dir / f"work-{stamp}"
    with kinesis_for_tests(workdir) as kinesis:
        spark = pyspark_kinesis.configure(
            SparkSession.builder.master("local[4]").config("spark.ui.enabled", "false")
        ).getOrCreate()
        spark.sparkContext.setLogLevel("ERROR")
        runs = [measure(spark, kinesis, shards, args.records, args.rate, workdir) for shards in args.shards]
        spark.stop()
    report = {
        "when": stamp,
        "machine": platform.node(),
        "python": platform.python_version(),
        "backend": "kinesis-mock (local)",
        "runs": runs,
    }
    out = results_dir / f"ingest-latency-{stamp}.json"
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"{'shards':>6} {'records/s':>10} {'p50 s':>7} {'p99 s':>7} complete")
    for r in runs:
        print(
            f"{r['shards']:>6} {r['ingest_records_per_s']:>10} {r['latency_p50_s']:>7} "
            f"{r['latency_p99_s']:>7} {r['complete']}"
        )
    print(f"written to {out}")


if __name__ == "__main__":
    main()
