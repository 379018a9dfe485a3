"""Benchmark, run on demand (`make bench-realtime`), never in CI: end-to-end latency of
real-time mode, record put -> visible in a foreach sink, p50 / p99 / max over a steady stream
of records into a 4-shard stream, in both consumer modes, and the same query in micro-batch
mode with the lowest-latency settings for comparison. A table goes to
tests/benchmarks/results/realtime-latency-<time>.md (and .json) and is printed.

The sink is a JVM ForeachWriter (jvm/LatencySink.java, compiled here with javac against
pyspark's jars): PySpark's foreach hands rows to Python in growing batches, so in real-time
mode a Python sink sees a task's rows only when the task ends.

Latency is measured from just before the PutRecords call that wrote the record to the moment
the sink's process() saw it, on one machine's clock; the PutRecords call itself is part of it
and is reported on its own ("put call"), as that is what the local Kinesis adds.

    python tests/benchmarks/realtime_latency.py [--records 10000] [--rate 250] [--shards 4]
        [--runs realtime-efo realtime-polling micro-batch-polling micro-batch-efo]

Runs against kinesis-mock started for the purpose, or the Kinesis named by KINESIS_ENDPOINT.
"""

import argparse
import json
import platform
import subprocess
import sys
import threading
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from realtime import MIN_BATCH_DURATION, deliveries  # noqa: E402

from kinesis_local import kinesis_for_tests  # noqa: E402

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
    """Puts `total` records at `rate` records/s in 4 puts a second (a call to the local Kinesis
    takes ~0.2 s); each record's data is the time just before its put. Keeps the duration of
    every put call."""

    def __init__(self, kinesis, stream, total, rate):
        super().__init__(daemon=True)
        self.kinesis, self.stream, self.total, self.rate = kinesis, stream, total, rate
        self.put_seconds, self.error = [], None

    def run(self):
        chunk, sent, started = max(1, self.rate // 4), 0, time.monotonic()
        try:
            while sent < self.total:
                n = min(chunk, self.total - sent)
                before = time.time()
                self.kinesis.put_records(self.stream, [(f"k{sent + i}", repr(before).encode()) for i in range(n)])
                self.put_seconds.append(time.time() - before)
                sent += n
                ahead = sent / self.rate - (time.monotonic() - started)
                if ahead > 0:
                    time.sleep(ahead)
        except Exception as e:  # reported by measure()
            self.error = e


def measure(spark, kinesis, name, records, rate, shards, workdir):
    trigger, extra = RUNS[name]
    stream = kinesis.create_stream(shards=shards)
    sink, checkpoint = workdir / f"sink-{name}", workdir / f"checkpoint-{name}"
    sink.mkdir(parents=True)
    options = {"streamName": stream, "endpoint": kinesis.endpoint, "region": kinesis.region,
               "initialPosition": "latest", **extra}
    if options.get("consumerMode") == "efo":
        options.update(consumerName=f"bench-{uuid.uuid4().hex[:8]}", requireConsumerDeregistration="true")
    query = start_jvm_foreach(spark, spark.readStream.format("kinesis").options(**options).load(),
                              sink, checkpoint, trigger)
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
        producer = SteadyProducer(kinesis, stream, records, rate)
        producer.start()
        producer.join()
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
    return {
        "run": name, "trigger": trigger, "shards": shards, "records": records, "rate": rate,
        "delivered": len(first), "repeated": len(rows) - len(first),
        "p50_ms": round(percentile(latencies, 50) * 1000) if latencies else None,
        "p99_ms": round(percentile(latencies, 99) * 1000) if latencies else None,
        "max_ms": round(latencies[-1] * 1000) if latencies else None,
        "put_call_p50_ms": round(percentile(producer.put_seconds, 50) * 1000),
        "put_call_p99_ms": round(percentile(producer.put_seconds, 99) * 1000),
        "source_metrics": metrics,
    }


def latency_sink_jar(workdir):
    """LatencySink compiled against the running pyspark's jars, as a jar in `workdir`."""
    import pyspark

    classpath = str(Path(pyspark.__file__).parent / "jars" / "*")
    classes = workdir / "latency-sink-classes"
    subprocess.run(["javac", "--release", "17", "-cp", classpath, "-d", str(classes),
                    str(HERE / "jvm" / "LatencySink.java")], check=True)
    jar = workdir / "latency-sink.jar"
    subprocess.run(["jar", "cf", str(jar), "-C", str(classes), "."], check=True)
    return jar


def start_jvm_foreach(spark, df, sink, checkpoint, trigger):
    """df.writeStream.foreach(LatencySink) through py4j; a PySpark StreamingQuery."""
    from pyspark.sql.streaming.query import StreamingQuery

    jvm = spark.sparkContext._jvm
    writer = (df._jdf.writeStream().foreach(jvm.LatencySink(str(sink)))
              .option("checkpointLocation", str(checkpoint)))
    if trigger == "realtime":
        writer = writer.outputMode("update").trigger(jvm.org.apache.spark.sql.streaming.Trigger.RealTime("5 seconds"))
    return StreamingQuery(writer.start())


def table(runs):
    lines = ["| run | trigger | records | delivered | p50 ms | p99 ms | max ms | put call p50 / p99 ms |",
             "|---|---|---|---|---|---|---|---|"]
    for r in runs:
        lines.append(f"| {r['run']} | {r['trigger']} | {r['records']} | {r['delivered']} | {r['p50_ms']} | "
                     f"{r['p99_ms']} | {r['max_ms']} | {r['put_call_p50_ms']} / {r['put_call_p99_ms']} |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=10000)
    parser.add_argument("--rate", type=int, default=250, help="records put per second")
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--runs", nargs="+", choices=sorted(RUNS), default=list(RUNS))
    args = parser.parse_args()

    from pyspark.sql import SparkSession

    import pyspark_kinesis

    results = HERE / "results"
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    workdir = results / f"work-realtime-{stamp}"
    workdir.mkdir(parents=True)
    with kinesis_for_tests(workdir) as kinesis:
        # One task slot per shard for the real-time tasks, and room for the driver's jobs.
        jar = latency_sink_jar(workdir)
        spark = pyspark_kinesis.configure(SparkSession.builder.master(f"local[{args.shards + 2}]")
                                          .config("spark.ui.enabled", "false")
                                          .config("spark.driver.extraClassPath", str(jar))).getOrCreate()
        spark.sparkContext.setLogLevel("ERROR")
        spark.conf.set(MIN_BATCH_DURATION, "5000")
        runs = []
        for name in args.runs:
            runs.append(measure(spark, kinesis, name, args.records, args.rate, args.shards, workdir))
            print(table(runs[-1:]), flush=True)
        spark.stop()
    command = "python tests/benchmarks/realtime_latency.py " + " ".join(sys.argv[1:])
    text = (f"# Real-time latency, {stamp}\n\n`{command}` on {platform.node()}, kinesis-mock (local), "
            f"{args.shards} shards, {args.rate} records/s, batch duration 5 s (real-time)\n\n{table(runs)}\n")
    (results / f"realtime-latency-{stamp}.md").write_text(text)
    (results / f"realtime-latency-{stamp}.json").write_text(json.dumps(runs, indent=2) + "\n")
    print(text)


if __name__ == "__main__":
    main()
