# SPDX-License-Identifier: Apache-2.0
"""Benchmark, run on demand (`make bench-realtime`), never in CI: end-to-end latency of
real-time mode, record put -> visible in a foreach sink, p50 / p99 / max over a steady stream
of records into a 4-shard stream, in both consumer modes, and the same query in micro-batch
mode with the lowest-latency settings for comparison. A table goes to
docs/benchmarks/realtime-latency-batches-<batch duration>s.md (--results-dir elsewhere), the
current file for that batch duration which the next run with it overwrites, and is printed.

The Kinesis is the benchmark endpoint of benchmarks/ (`make bench-jar`), which serves from
memory and adds no propagation delay: a record is readable as soon as its PutRecords call
is answered. `--backend kinesis-mock` runs against kinesis-mock instead (or the Kinesis
named by KINESIS_ENDPOINT), whose PutRecords alone takes 0.2-2 s.

Records are put through boto3 at a steady rate, a PutRecords call every `--put-every-ms`
with as many records as are due; each record's data is the time just before its call, so
the call itself is part of the latency and is reported on its own ("put call": what the
Kinesis adds per put). Latency ends when the sink's process() sees the record, on the same
machine's clock.

The sink is a JVM ForeachWriter (jvm/LatencySink.java, compiled here with javac against
pyspark's jars): PySpark's foreach hands rows to Python in growing batches, so in real-time
mode a Python sink sees a task's rows only when the task ends.

Each run is a Spark session of its own (a child process), so builds of the connector can be
compared in one run, interleaved run by run (`--jar label=path`, repeatable; default: the
jar `make wheel` installed).

    python benchmarks/realtime_latency.py [--records 10000] [--rate 250] [--shards 4]
        [--runs realtime-efo realtime-polling micro-batch-polling micro-batch-efo]
        [--backend bench|kinesis-mock] [--jar label=path ...] [--batch-duration 5]
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "support"))
sys.path.insert(0, str(HERE))

from bench_backend import CREDENTIALS, BenchKinesis, cpu_seconds  # noqa: E402
from realtime import MIN_BATCH_DURATION, deliveries  # noqa: E402

from kinesis_local import Kinesis, kinesis_for_tests  # noqa: E402

RUNS = {
    # name: (trigger, source options)
    "realtime-efo": ("realtime", {"consumerMode": "efo"}),
    "realtime-polling": ("realtime", {"minFetchPeriod": "200ms"}),
    "micro-batch-polling": ("micro-batch", {"minFetchPeriod": "200ms", "maxFetchDuration": "200ms"}),
    "micro-batch-efo": ("micro-batch", {"consumerMode": "efo", "maxFetchDuration": "200ms"}),
}


def percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


class SteadyProducer(threading.Thread):
    """Puts `total` records at `rate` records/s: every `every_s` a PutRecords call with the
    records due by then; each record's data is the time just before its call. Keeps the
    duration of every call."""

    def __init__(self, kinesis, stream, total, rate, every_s):
        super().__init__(daemon=True)
        self.kinesis, self.stream, self.total, self.rate, self.every_s = kinesis, stream, total, rate, every_s
        self.put_seconds, self.error = [], None

    def run(self):
        sent, started = 0, time.monotonic()
        next_call = started
        try:
            while sent < self.total:
                due = round((time.monotonic() - started) * self.rate) + 1
                n = min(self.total - sent, max(1, due - sent))
                before = time.time()
                self.kinesis.put_records(self.stream, [(f"k{sent + i}", repr(before).encode()) for i in range(n)])
                self.put_seconds.append(time.time() - before)
                sent += n
                next_call += self.every_s
                time.sleep(max(0.0, next_call - time.monotonic()))
        except Exception as e:  # reported by measure()
            self.error = e


def measure(spark, kinesis, spec):
    """One run in this Spark session: a fresh stream, the query, warm-up, then the steady records."""
    name, records, rate, shards = spec["run"], spec["records"], spec["rate"], spec["shards"]
    trigger, extra = RUNS[name]
    workdir = Path(spec["workdir"])
    stream = kinesis.create_stream(shards=shards)
    sink, checkpoint = workdir / f"sink-{name}", workdir / f"checkpoint-{name}"
    sink.mkdir(parents=True)
    options = {
        "streamName": stream,
        "endpoint": kinesis.endpoint,
        "region": kinesis.region,
        "initialPosition": "latest",
        **extra,
    }
    if options.get("consumerMode") == "efo":
        options.update(consumerName=f"bench-{uuid.uuid4().hex[:8]}", requireConsumerDeregistration="true")
    query = start_jvm_foreach(
        spark,
        spark.readStream.format("kinesis").options(**options).load(),
        sink,
        checkpoint,
        trigger,
        spec["batch_duration_s"],
    )
    pid = spark._jvm.java.lang.ProcessHandle.current().pid()
    try:
        # Warm up: the query runs and has delivered a record before the measured ones are put.
        deadline = time.monotonic() + 180
        while not deliveries(sink):
            if query.exception() or time.monotonic() > deadline:
                raise RuntimeError(f"{name}: the query did not start: {query.exception()}")
            kinesis.put_records(stream, [("warm-up", b"warm-up")])
            time.sleep(1)
        time.sleep(2)
        warm = {r["seq"] for r in deliveries(sink)}
        load_before, cpu_before, began = os.getloadavg()[0], cpu_seconds(pid), time.time()
        producer = SteadyProducer(kinesis, stream, records, rate, spec["put_every_ms"] / 1000)
        producer.start()
        producer.join()
        produced_s, cores = time.time() - began, (cpu_seconds(pid) - cpu_before) / (time.time() - began)
        if producer.error:
            raise producer.error
        deadline = time.monotonic() + 300
        while len([r for r in deliveries(sink) if r["seq"] not in warm]) < records and time.monotonic() < deadline:
            time.sleep(1)
        metrics = (query.lastProgress or {}).get("sources", [{}])[0].get("metrics", {})
    finally:
        query.stop()
        kinesis.delete_stream(stream)
    rows = [r for r in deliveries(sink) if r["seq"] not in warm and r["data"] != "warm-up"]
    first = {}
    for r in rows:  # a record delivered twice counts at its first delivery
        first[r["seq"]] = min(first.get(r["seq"], float("inf")), r["sinkTime"] - float(r["data"]))
    latencies = sorted(first.values())
    # Between two real-time batches no task reads: Spark commits the batch and plans the next.
    spans = {}
    for r in deliveries(sink):
        low, high = spans.get(r["batch"], (r["sinkTime"], r["sinkTime"]))
        spans[r["batch"]] = (min(low, r["sinkTime"]), max(high, r["sinkTime"]))
    gaps = [spans[b][0] - spans[a][1] for a, b in zip(sorted(spans), sorted(spans)[1:]) if b == a + 1]

    def ms(q):
        return round(percentile(latencies, q) * 1000) if latencies else None

    return {
        "run": name,
        "trigger": trigger,
        "shards": shards,
        "records": records,
        "rate": rate,
        "delivered": len(first),
        "repeated": len(rows) - len(first),
        "p50_ms": ms(50),
        "p90_ms": ms(90),
        "p99_ms": ms(99),
        "max_ms": ms(100),
        "put_call_p50_ms": round(percentile(producer.put_seconds, 50) * 1000, 1),
        "put_call_p99_ms": round(percentile(producer.put_seconds, 99) * 1000, 1),
        "batches": len(spans),
        "batch_gap_ms": round(percentile(gaps, 50) * 1000) if gaps else None,
        "put_calls": len(producer.put_seconds),
        "seconds": round(produced_s, 1),
        "cores": round(cores, 3),
        "load_1min": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "source_metrics": metrics,
    }


def latency_sink_jar(workdir):
    """LatencySink compiled against the running pyspark's jars, as a jar in `workdir`."""
    import pyspark

    classpath = str(Path(pyspark.__file__).parent / "jars" / "*")
    classes = workdir / "latency-sink-classes"
    subprocess.run(
        ["javac", "--release", "17", "-cp", classpath, "-d", str(classes), str(HERE / "jvm" / "LatencySink.java")],
        check=True,
    )
    jar = workdir / "latency-sink.jar"
    subprocess.run(["jar", "cf", str(jar), "-C", str(classes), "."], check=True)
    return jar


def start_jvm_foreach(spark, df, sink, checkpoint, trigger, batch_duration_s):
    """df.writeStream.foreach(LatencySink) through py4j; a PySpark StreamingQuery."""
    from pyspark.sql.streaming.query import StreamingQuery

    jvm = spark.sparkContext._jvm
    writer = df._jdf.writeStream().foreach(jvm.LatencySink(str(sink))).option("checkpointLocation", str(checkpoint))
    if trigger == "realtime":
        writer = writer.outputMode("update").trigger(
            jvm.org.apache.spark.sql.streaming.Trigger.RealTime(f"{batch_duration_s} seconds")
        )
    return StreamingQuery(writer.start())


def run_one(spec):
    """A child process: one run in a Spark session of its own, on the jar in $PYSPARK_KINESIS_JAR."""
    from pyspark.sql import SparkSession

    import pyspark_kinesis

    # One task slot per shard for the real-time tasks, and room for the driver's jobs.
    spark = pyspark_kinesis.configure(
        SparkSession.builder.master(f"local[{spec['shards'] + 2}]")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.extraClassPath", spec["sink_jar"])
    ).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    spark.conf.set(MIN_BATCH_DURATION, str(spec["batch_duration_s"] * 1000))
    kinesis = Kinesis(spec["endpoint"], spec["region"])
    try:
        result = measure(spark, kinesis, spec)
    finally:
        kinesis.close()
        spark.stop()
    print("RESULT " + json.dumps(result), flush=True)


def run_child(spec, jar):
    env = dict(os.environ)
    if jar:
        env["PYSPARK_KINESIS_JAR"] = str(jar)
    out = subprocess.run(
        [sys.executable, __file__, "--one", json.dumps(spec)], capture_output=True, text=True, env=env, timeout=1200
    )
    lines = [line for line in out.stdout.splitlines() if line.startswith("RESULT ")]
    if out.returncode != 0 or not lines:
        raise RuntimeError(f"{spec['run']} failed ({out.returncode}):\n{out.stderr[-3000:]}")
    return json.loads(lines[-1][len("RESULT ") :])


@contextmanager
def kinesis_backend(name, workdir):
    """(endpoint, region, what it is) of a Kinesis for the run: the benchmark endpoint or kinesis-mock."""
    if name == "kinesis-mock":
        with kinesis_for_tests(workdir) as kinesis:
            yield kinesis.endpoint, kinesis.region, "kinesis-mock (local)"
        return
    saved = {k: os.environ.get(k) for k in CREDENTIALS}
    os.environ.update(CREDENTIALS)  # the endpoint takes any signature; boto3 and the JVMs sign with these
    try:
        with BenchKinesis([]) as k:
            yield k.endpoint, CREDENTIALS["AWS_REGION"], "the benchmark Kinesis of benchmarks/ (memory, loopback)"
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def table(runs):
    lines = [
        "| run | build | delivered | p50 ms | p90 ms | p99 ms | max ms | put call p50 / p99 ms | "
        "batches, gap ms | JVM cores | load (1 min) |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in runs:
        lines.append(
            f"| {r['run']} | {r['build']} | {r['delivered']} / {r['records']} | {r['p50_ms']} | "
            f"{r['p90_ms']} | {r['p99_ms']} | {r['max_ms']} | {r['put_call_p50_ms']} / "
            f"{r['put_call_p99_ms']} | {r['batches']}, {r['batch_gap_ms']} | {r['cores']} | "
            f"{r['load_1min'][0]}-{r['load_1min'][1]} |"
        )
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=10000)
    parser.add_argument("--rate", type=int, default=250, help="records put per second")
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--runs", nargs="+", choices=sorted(RUNS), default=list(RUNS))
    parser.add_argument("--backend", choices=["bench", "kinesis-mock"], default="bench")
    parser.add_argument(
        "--put-every-ms",
        type=int,
        default=None,
        help="one PutRecords call this often (default 20; 250 for kinesis-mock)",
    )
    parser.add_argument("--batch-duration", type=int, default=5, help="real-time batch duration, seconds")
    parser.add_argument("--jar", action="append", default=[], help="label=path of a connector jar (repeatable)")
    parser.add_argument(
        "--results-dir", type=Path, default=HERE.parent / "docs" / "benchmarks", help="where the table goes"
    )
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        run_one(json.loads(args.one))
        return
    jars = [tuple(j.split("=", 1)) for j in args.jar] or [("now", None)]
    every_ms = args.put_every_ms or (250 if args.backend == "kinesis-mock" else 20)

    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    runs = []
    with tempfile.TemporaryDirectory(prefix="realtime-latency-") as tmp:
        workdir = Path(tmp)
        sink_jar = latency_sink_jar(workdir)
        with kinesis_backend(args.backend, workdir) as (endpoint, region, backend):
            for name in args.runs:
                for label, jar in jars:  # builds interleaved run by run: same machine moment
                    spec = {
                        "run": name,
                        "records": args.records,
                        "rate": args.rate,
                        "shards": args.shards,
                        "endpoint": endpoint,
                        "region": region,
                        "put_every_ms": every_ms,
                        "batch_duration_s": args.batch_duration,
                        "sink_jar": str(sink_jar),
                        "workdir": str(workdir / f"{name}-{label}"),
                    }
                    runs.append({"build": label, **run_child(spec, jar)})
                    print(table(runs[-1:]), flush=True)
    command = "python benchmarks/realtime_latency.py " + " ".join(sys.argv[1:])
    builds = ", ".join(f"`{label}` = {Path(jar).name if jar else 'the installed wheel'}" for label, jar in jars)
    text = (
        f"# Real-time latency, {stamp}\n\n`{command}` on {platform.node()} ({os.cpu_count()} cores), "
        f"against {backend}; {args.shards} shards, {args.rate} records/s in a PutRecords call every "
        f"{every_ms} ms, real-time batch duration {args.batch_duration} s. Builds: {builds}.\n\n"
        f"Latency: put (just before the PutRecords call) to the foreach sink's process(). Batches: how "
        f"many the sink saw, and the median time from the last row of one to the first of the next. "
        f"JVM cores: CPU of the Spark JVM while the records were put. Load: the machine's 1-minute load "
        f"average at the start and end of the run.\n\n{table(runs)}\n"
    )
    raw = f"\n<details><summary>raw figures</summary>\n\n```json\n{json.dumps(runs, indent=1)}\n```\n</details>\n"
    args.results_dir.mkdir(parents=True, exist_ok=True)
    out = args.results_dir / f"realtime-latency-batches-{args.batch_duration}s.md"
    out.write_text(text + raw)
    print(text)
    print(f"written to {out}")


if __name__ == "__main__":
    main()
