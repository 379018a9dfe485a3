# SPDX-License-Identifier: Apache-2.0
"""`make bench`: the connector against the benchmark Kinesis (benchmarks/, serving from memory),
row by row, each build of the connector side by side. Writes each row's current results,
docs/benchmarks/<row>.md and its chart <row>.png (--results-dir elsewhere), replacing that row's
last run, and prints the table. Timings here only: never pass/fail.

    python benchmarks/bench.py [--rows polling efo ...] [--jar label=path ...] [--warm-rounds N] ...

Rows: backend, calls, polling, efo, cold-polling, cold-efo, cold-polling-limited, limits-polling, limits-efo,
latency-default, latency-low, latency-realtime, latency-realtime-efo, pipeline-realtime, pipeline-micro-batch,
latency-floor, steady, steady-efo, steady-noop, steady-noop-floor, idle, idle-efo, scale-100, scale-1000, scale-10000,
scale-10000-busy, memory,
memory-efo, memory-many-shards, sink, sink-limits; the scale rows run on another Spark master with --scale-master (e.g.
local-cluster[2,1,2048]). Builds: --jar label=path (repeatable); by default "now" (the jar `make wheel`
built) and "before" (.bench/baseline.jar, made by `make bench-baseline` from BENCH_BASELINE) when it
exists. Every figure is of one run on one machine: compare the builds with each other, not with
other machines.
"""

import argparse
import importlib.util
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_backend import CREDENTIALS, ROOT, BenchKinesis, bare_sdk_reader, cpu_seconds  # noqa: E402
from bench_report import write_report  # noqa: E402

RECORD = 1024
SMALL = 100  # the sink rows' size: data plus partition key
LOW_LATENCY = {"maxFetchDuration": "200ms", "minFetchPeriod": "210ms"}
MASTER = "local[2]"  # every row's Spark; the scale rows may run on another (--scale-master)


def run_spark(kind, jar, spec):
    """One measurement in a Spark session of its own, on connector jar `jar`."""
    with tempfile.TemporaryDirectory(prefix="bench-") as workdir:
        spec = {**spec, "kind": kind, "workdir": workdir}
        env = {**os.environ, **CREDENTIALS, "PYSPARK_KINESIS_JAR": str(jar)}
        if os.environ.get("BENCH_JFR"):  # one profile per measurement: <file>-<kind>-<jar>[-<n>].jfr
            profile = Path(os.environ["BENCH_JFR"])
            base = f"{profile.stem}-{kind}-{Path(jar).stem}"
            # The throughput and cold rows share a kind: a later measurement must not overwrite an earlier one's.
            n, target = 1, profile.with_name(base + (profile.suffix or ".jfr"))
            while target.exists():
                n += 1
                target = profile.with_name(f"{base}-{n}{profile.suffix or '.jfr'}")
            env["BENCH_JFR"] = str(target)
        out = subprocess.run(
            [sys.executable, str(HERE / "bench_spark.py"), json.dumps(spec)],
            capture_output=True,
            text=True,
            env=env,
            timeout=spec.get("timeout_s", 600) + 180,
        )
        if os.environ.get("BENCH_JVM_OUT"):  # the Spark JVM's own output, e.g. its compilation log
            kept = Path(os.environ["BENCH_JVM_OUT"]) / f"{kind}-{Path(jar).stem}.log"
            kept.parent.mkdir(parents=True, exist_ok=True)
            kept.write_text(out.stdout + out.stderr)
        lines = [line for line in out.stdout.splitlines() if line.startswith("RESULT ")]
        sys.stderr.writelines(
            f"{kind} {Path(jar).name}: {line}\n" for line in out.stderr.splitlines() if line.startswith("thread-cpu ")
        )  # BENCH_THREADS's breakdown
        if out.returncode != 0 or not lines:
            # The JVM's own last words (an OutOfMemoryError, a crash) come before Python's traceback.
            jvm = [
                line
                for line in out.stderr.splitlines()
                if any(k in line for k in ("OutOfMemoryError", "hs_err", "Exception in thread", " ERROR "))
            ]
            raise RuntimeError(f"{kind} failed ({out.returncode}):\n" + "\n".join(jvm[:20]) + f"\n{out.stderr[-3000:]}")
        return json.loads(lines[-1][len("RESULT ") :])


def failure_cause(e):
    """The line that says why a measurement failed: the JVM's OutOfMemoryError, else the last
    exception's message (a query's error is followed by its plan and state), else the last line."""
    lines = str(e).strip().splitlines() or [type(e).__name__]
    raised = [line for line in lines if re.match(r"\w+(Error|Exception): ", line)]
    return next((line for line in lines if "OutOfMemoryError" in line), (raised or lines)[-1])[:300]


def consumer_options(mode):
    """The source options that read by `mode`: with `efo`, through a consumer of a name of its own."""
    return {"consumerMode": "efo", "consumerName": f"bench-{int(time.time())}"} if mode == "efo" else {}


def one_build(label, kind, jar, spec):
    """run_spark for one build, labelled; or the build's failure: a build that fails (say, out of
    heap) must not lose the other builds' figures of the same row."""
    try:
        return {"build": label, **run_spark(kind, jar, spec)}
    except Exception as e:
        sys.stderr.write(f"bench: build {label} failed:\n{e}\n")
        return {"build": label, "error": failure_cause(e)}


def backend(args, jars):
    """The endpoint on one event-loop thread, read by the bare SDK after a warm-up read: records
    per CPU-second of the endpoint (its whole process: one thread serves, GC and JIT add)."""
    records = 8 * args.records_per_shard * 2
    results = []
    for mode in ("polling", "efo"):
        with BenchKinesis(
            ["--stream", f"s:8:{records // 8}:{RECORD}", "--stream", f"warm:8:{records // 32}:{RECORD}"], threads=1
        ) as k:
            bare_sdk_reader(k.endpoint, "warm", records // 4, mode)
            before = cpu_seconds(k.pid)
            bare = bare_sdk_reader(k.endpoint, "s", records, mode)
            server_cpu = cpu_seconds(k.pid) - before
        results.append(
            {
                "build": f"endpoint, {mode}",
                "records": bare["records"],
                "endpoint_records_per_cpu_s": bare["records"] / server_cpu,
                "client_records_per_cpu_s": bare["records"] / bare["cpu_seconds"],
                "records_per_s": bare["records"] / bare["seconds"],
            }
        )
    return results


def backfill_spec(mode, endpoint, per_shard):
    """What the throughput rows read: stream "s" of 8 shards x per_shard x RECORD bytes, at the full rate."""
    options = {"maxFetchRate": "2.0"}
    if mode == "efo":
        options.update(consumerMode="efo", consumerName=f"bench-{int(time.time())}")
    return {
        "endpoint": endpoint,
        "stream": "s",
        "record_size": RECORD,
        "options": options,
        "records_per_shard": per_shard,
    }


def cold(mode, batches=None):
    """A fresh Spark JVM's first backfill: Trigger.AvailableNow over 8 shards x
    --records-per-shard x 1 KB into noop, nothing read before, CPU of the whole query (class
    loading and the JIT included), what a new pipeline or one catching up after an outage pays.
    With `batches`, under a maxRecordsPerTrigger that splits the backlog into that many batches."""

    def row(args, jars):
        per_shard = args.records_per_shard
        with BenchKinesis(["--stream", f"s:8:{per_shard}:{RECORD}"]) as k:
            spec = {**backfill_spec(mode, k.endpoint, per_shard), "warm_rounds": 0}
            if batches:
                spec["options"] = {**spec["options"], "maxRecordsPerTrigger": str(8 * per_shard // batches)}
            results = [one_build(label, "throughput", jar, spec) for label, jar in jars]
            bare = bare_sdk_reader(k.endpoint, "s", 8 * per_shard, mode)
        measured = [r for r in results if "error" not in r]
        if measured:
            sdk, alone, floor = cold_floor(bare, spark_alone(measured[0], jars[0][1], cold=True))
            results += [sdk, alone, floor]
            for r in measured:
                r["of_floor"] = r["records_per_cpu_s"] / floor["records_per_cpu_s"]
        return results

    return row


def bare_figures(bare):
    """A bare SDK reader's run as a row's figures."""
    return {
        "records": bare["records"],
        "seconds": bare["seconds"],
        "cpu_seconds": bare["cpu_seconds"],
        "records_per_s": bare["records"] / bare["seconds"],
        "mb_per_s": bare["bytes"] / bare["seconds"] / 1e6,
        "records_per_cpu_s": bare["records"] / bare["cpu_seconds"],
    }


def cold_floor(bare, alone):
    """What no connector on the SDK goes below in a cold row: the plain SDK reading the same
    records in a fresh JVM of its own (its class loading and JIT included), plus what Spark alone
    spends in a fresh JVM over the same batches and seconds. Each build's share of it is its
    figure against that sum."""
    sdk = {"build": "bare SDK, cold (own JVM)", **bare_figures(bare)}
    cpu = sdk["cpu_seconds"] + alone["cpu_seconds"]
    floor = {
        "build": "floor (the two above)",
        "records": sdk["records"],
        "cpu_seconds": cpu,
        "records_per_cpu_s": sdk["records"] / cpu,
    }
    return [sdk, alone, floor]


def throughput(mode):
    def row(args, jars):
        per_shard = args.records_per_shard
        results = []
        warm = per_shard
        with BenchKinesis(["--stream", f"s:8:{per_shard}:{RECORD}", "--stream", f"warm:8:{warm}:{RECORD}"]) as k:
            spec = {
                **backfill_spec(mode, k.endpoint, per_shard),
                "warm_stream": "warm",
                "warm_records_per_shard": warm,
                "warm_rounds": args.warm_rounds,
            }
            for label, jar in jars:
                results.append(one_build(label, "throughput", jar, spec))
            if mode == "polling":
                ceiling = run_spark("ceiling_polling", jars[0][1], spec)
            else:
                ceiling = bare_figures(bare_sdk_reader(k.endpoint, "s", 8 * per_shard, "efo"))
        results.append({"build": "bare SDK ceiling" + (" (own JVM)" if mode == "efo" else ""), **ceiling})
        for r in results:
            if "error" not in r:
                r["of_ceiling"] = r["records_per_cpu_s"] / ceiling["records_per_cpu_s"]
        measured = [r for r in results[: len(jars)] if "error" not in r]
        if measured:
            alone = spark_alone(measured[0], jars[0][1])
            results.append(alone)
            # The JIT varies from run to run by more than a build changes it: leave it out of both.
            spark = alone["cpu_seconds"] - alone["cpu_by_kind"]["jit"]
            for r in measured:
                connector = r["cpu_seconds"] - r["cpu_by_kind"]["jit"] - spark
                r["records_per_cpu_s_besides_spark"] = r["records"] / max(connector, 1e-9)
        return results

    return row


def spark_alone(measured, jar, cold=False):
    """What Spark itself spends in a throughput row's window, whatever the source: Spark's rate
    source at the measured build's pace (its rows per second, its number of batches in as many
    seconds), into noop, after a warm-up as long (or, `cold`, from its start in a fresh JVM). Its
    CPU (planning and running the batches, listeners, the JIT compiling Spark's own code) is in
    every build's figure, and no connector change lowers it."""
    seconds = measured["seconds"]
    spec = {
        "rows_per_s": round(measured["records"] / seconds),
        "sink": "noop",
        "trigger_s": round(seconds / max(measured["batches"], 1), 1),
        "warmup_s": 0 if cold else seconds,
        "window_s": seconds,
    }
    alone = run_spark("spark_floor", jar, spec)
    cpu = alone["cores"] * alone["seconds"]
    return {
        "build": f"Spark alone{', cold' if cold else ''} (rate source, same pace)",
        **alone,
        "cpu_seconds": cpu,
        "cpu_by_kind": {kind: cores * alone["seconds"] for kind, cores in alone["cores_by_kind"].items()},
    }


def calls(args, jars):
    """GetRecords one after the other at an empty shard's tip, on each build's HTTP client: the
    time and CPU a call costs besides Kinesis' own."""
    with BenchKinesis(["--stream", "s:1:0:100"]) as k:
        spec = {"endpoint": k.endpoint, "stream": "s", "calls": 5000}
        return [one_build(label, "calls", jar, spec) for label, jar in jars]


def limits(mode, queries):
    def row(args, jars):
        shards, results = 4, []
        for label, jar in jars:
            # Enough records that no query reaches the tip within the window: 2 MiB/s for ~50 s.
            with BenchKinesis(["--limits", "--stream", f"s:{shards}:{110 * 1024}:{RECORD}"]) as k:
                # Each query holds a slot with its prefetch task and needs one for its batches.
                spec = {
                    "endpoint": k.endpoint,
                    "stream": "s",
                    "record_size": RECORD,
                    "shards": shards,
                    "queries": queries,
                    "slots": 2 * queries,
                    "efo": mode == "efo",
                    "warmup_s": 15,
                    "window_s": args.window_s,
                    "options": {"maxFetchRate": "2.0", **({"consumerMode": "efo"} if mode == "efo" else {})},
                }
                results.append(one_build(label, "at_limits", jar, spec))
        return results

    return row


def latency(settings):
    def row(args, jars):
        results = []
        for label, jar in jars:
            with BenchKinesis(["--stream", "s:2:0:100", "--produce", "s:1000:100"]) as k:
                spec = {
                    "endpoint": k.endpoint,
                    "stream": "s",
                    "warmup_s": 15,
                    "window_s": args.window_s,
                    "options": settings,
                }
                results.append(one_build(label, "latency", jar, spec))
        return results

    return row


def latency_realtime(mode):
    """The latency row in real-time mode (5-minute batches), into a JVM foreach sink."""

    def row(args, jars):
        from realtime_latency import latency_sink_jar

        options = consumer_options(mode)
        results = []
        with tempfile.TemporaryDirectory(prefix="bench-sink-") as tmp:
            sink_jar = latency_sink_jar(Path(tmp))
            for label, jar in jars:
                with BenchKinesis(["--stream", "s:2:0:100", "--produce", "s:1000:100"]) as k:
                    # A task slot per shard for the real-time tasks, and room for the driver's jobs.
                    spec = {
                        "endpoint": k.endpoint,
                        "stream": "s",
                        "warmup_s": 15,
                        "window_s": args.window_s,
                        "batch_duration_s": 300,
                        "slots": 4,
                        "driver_class_path": str(sink_jar),
                        "options": options,
                    }
                    results.append(one_build(label, "latency_realtime", jar, spec))
        return results

    return row


def has_class(jar, entry):
    with zipfile.ZipFile(jar) as archive:
        return entry in archive.namelist()


def pipeline(trigger):
    """Kinesis -> query -> Kinesis with the foreach writer, EFO in (bench_pipeline.py), at each of
    --pipeline-rates (1,000 and 10,000 records/s) over 2 shards: put into the first stream to
    arrival in the second."""

    def row(args, jars):
        options = consumer_options("efo")
        if trigger == "micro-batch":
            options["maxFetchDuration"] = "200ms"  # the low-latency micro-batch setting
        results = []
        for rate in args.pipeline_rates:
            for label, jar in jars:
                if not has_class(jar, "io/github/sparkkinesis/sink/KinesisForeachWriter.class"):
                    results.append(
                        {"build": f"{label}, {rate:,} records/s", "error": "no foreach writer in this build"}
                    )
                    continue
                with BenchKinesis(
                    ["--stream", "s:2:0:100", "--stream", "out:2:0:100", "--produce", f"s:{rate}:100"]
                ) as k:
                    # A task slot per shard for the real-time tasks, and room for the driver's jobs.
                    spec = {
                        "endpoint": k.endpoint,
                        "stream": "s",
                        "out": "out",
                        "trigger": trigger,
                        "warmup_s": 15,
                        "window_s": args.window_s,
                        "batch_duration_s": 300,
                        "slots": 4,
                        "options": options,
                    }
                    results.append(one_build(f"{label}, {rate:,} records/s", "pipeline", jar, spec))
        return results

    return row


def spark_floor(sink):
    """The same query on Spark's rate source: what Spark itself spends at 1,000 rows/s into `sink`."""

    def row(args, jars):
        spec = {"rows_per_s": 1000, "sink": sink, "warmup_s": 15, "window_s": args.window_s}
        return [{"build": "Spark's rate source", **run_spark("spark_floor", jars[0][1], spec)}]

    return row


def steady(args, jars):
    """1,000 records/s over 2 shards into the noop sink (default settings): the connector's cores."""
    results = []
    for label, jar in jars:
        with BenchKinesis(["--stream", "s:2:0:100", "--produce", "s:1000:100"]) as k:
            spec = {"endpoint": k.endpoint, "stream": "s", "warmup_s": 15, "window_s": args.window_s}
            results.append(one_build(label, "steady", jar, spec))
    return results


def steady_rates(mode):
    """--steady-shards shards at each of --steady-rates records/s a shard (1 KB), a 10-second
    trigger into noop, the JVM's CPU over whole batches (at least --steady-batches, spanning at
    least --steady-window-s seconds) after three more and at least --steady-warmup-s seconds (the
    same times for every build): records per CPU-second and calls
    per record, each build with `minFetchPeriod` 200ms (awslabs' default fetch interval), with
    its defaults, and with its defaults at a 21-second trigger, the batch interval awslabs'
    connector runs at (--steady-settings), beside awslabs' connector 2.x (--peer, built by `make
    bench-peer`) with its defaults but for a task's reading time; ratios against it."""

    def row(args, jars):
        shards, results = args.steady_shards, []
        settings = [setting for setting in STEADY_SETTINGS if setting[0] in args.steady_settings]
        builds = [
            (f"{label}, {name}", jar, options, False, trigger_s)
            for label, jar in jars
            for name, options, trigger_s in settings
        ]
        if args.peer and Path(args.peer).exists():
            # By default its batch task reads a live shard until 100,000 records (100 s at 1,000/s):
            # 10 s a task, the least it allows, is its nearest to a 10-second trigger.
            builds.append(
                (
                    "awslabs 2.x, fetchIntervalMs 200 (its default), maxFetchTimePerShardSec 10",
                    Path(args.peer),
                    {"kinesis.maxFetchTimePerShardSec": "10"},
                    True,
                    10,
                )
            )
        for rate in args.steady_rates:
            rounds = in_rounds(
                args.repeats, builds, lambda build, rate=rate: steady_once(args, mode, shards, rate, *build)
            )
            results += steady_summary(builds, rounds)
        return results

    return row


def steady_once(args, mode, shards, rate, label, jar, options, peer, trigger_s):
    """One build's steady measurement on a fresh benchmark Kinesis producing `rate` records/s a shard."""
    produce = ["--produce", f"s:{rate * shards}:{RECORD}"]
    with BenchKinesis(["--stream", f"s:{shards}:0:{RECORD}"] + produce) as k:
        consumer = f"bench-{int(time.time())}"
        if mode == "efo" and not peer:
            options = {**options, "consumerMode": "efo", "consumerName": consumer}
        spec = {
            "endpoint": k.endpoint,
            "stream": "s",
            "trigger_s": trigger_s,
            "warmup_batches": 3,
            "warmup_s": args.steady_warmup_s,
            "batches": args.steady_batches,
            "window_s": args.steady_window_s,
            "options": options,
            "peer": peer,
            "efo": mode == "efo",
            "consumer": consumer,
        }
        return one_build(f"{label}, {shards} x {rate:,}/s", "steady_rate", jar, spec)


def in_rounds(repeats, builds, measure):
    """`measure` of every build (its label first), `repeats` rounds: each round starts one build
    further on, so that no build is always measured first or last on a machine whose load
    drifts. A dict of results by label per round."""
    return [
        {builds[(n + i) % len(builds)][0]: measure(builds[(n + i) % len(builds)]) for i in range(len(builds))}
        for n in range(repeats)
    ]


def middle_run(runs, key, even):
    """The run of median `key` among those that did not fail (of an even count, the `even`
    ("lower" or "higher") of the middle two), with every run's figure when there are several;
    the first run (its error) when all failed."""
    ok = sorted((r for r in runs if "error" not in r), key=lambda r: r[key])
    if not ok:
        return runs[0]
    r = dict(ok[(len(ok) - (1 if even == "lower" else 0)) // 2])
    if len(runs) > 1:
        r["runs"] = len(ok)
        r[key + "_runs"] = [x[key] for x in ok]
        if any(x.get("host_unit_ms") is not None for x in ok):
            r["host_unit_ms_runs"] = [x.get("host_unit_ms") for x in ok]
    return r


def steady_summary(builds, rounds):
    """Each build's run of median records per CPU-second (of an even count, the lower of the middle
    two), with every round's figure, and its ratios to awslabs' connector: each round's ratio is
    taken within the round (the two ran minutes apart), and the median of those is the one
    reported, with their range."""
    peer_label = next((label for label, _, _, peer, _ in builds if peer), None)
    results = []
    for label, _, _, peer, _ in builds:
        r = middle_run([measured[label] for measured in rounds], "records_per_cpu_s", "lower")
        if "error" in r:
            results.append(r)
            continue
        paired = [
            (measured[label], measured[peer_label])
            for measured in rounds
            if peer_label and not peer and "error" not in measured[label] and "error" not in measured[peer_label]
        ]
        if paired:
            for key, field in (
                ("records_per_cpu_s_vs_awslabs", "records_per_cpu_s"),
                ("besides_jit_vs_awslabs", "records_per_cpu_s_besides_jit"),
                ("calls_per_record_vs_awslabs", "calls_per_1000_records"),
            ):
                ratios = sorted(mine[field] / theirs[field] for mine, theirs in paired if theirs[field])
                if ratios:
                    r[key] = statistics.median(ratios)
                    if len(ratios) > 1:
                        r[key + "_range"] = [ratios[0], ratios[-1]]
        results.append(r)
    return results


# Each build of the connector in the steady rows: awslabs' default fetch interval, its own
# defaults, and its defaults at the batch interval awslabs' connector runs at under a 10-second
# trigger (its batch task reads for maxFetchTimePerShardSec, 10 s, after the trigger: a batch
# every 21 s), so that both pay Spark's work per batch as often. (name, options, trigger seconds)
STEADY_SETTINGS = [
    ("minFetchPeriod 200ms", {"minFetchPeriod": "200ms"}, 10),
    ("defaults", {}, 10),
    ("defaults, a 21-second trigger", {}, 21),
]


# Beside the builds of the idle rows, in the same rounds: a query on a socket that sends nothing,
# with a trigger a second, the pace at which an idle Kinesis query's triggers come. What an idle query
# costs depends on the host's load far more than its yardstick does (each wake-up of each
# thread costs more); the same query without the connector, in the same minutes, tells what
# the connector adds from what any idle Spark query costs there.
SPARK_ALONE = "Spark alone"


def idle(mode):
    """A query with nothing to read, by polling or (`efo`) enhanced fan-out, each build and Spark
    alone --repeats times in rotated order: the median run (of an even count, the costlier of the
    middle two), and what each build adds to Spark alone, the median over the rounds."""

    def row(args, jars):
        def measure(build):
            label, jar = build
            if label == SPARK_ALONE:
                spec = {"spark_alone": True, "warmup_s": args.idle_warmup_s, "window_s": args.window_s}
                return one_build(label, "idle", jars[0][1], spec)
            with BenchKinesis(["--stream", "s:2:0:100"]) as k:
                options = consumer_options(mode)
                spec = {
                    "endpoint": k.endpoint,
                    "stream": "s",
                    "options": options,
                    "warmup_s": args.idle_warmup_s,
                    "window_s": args.window_s,
                }
                return one_build(label, "idle", jar, spec)

        builds = [*jars, (SPARK_ALONE, None)]
        rounds = in_rounds(args.repeats, builds, measure)
        results = [middle_run([measured[label] for measured in rounds], "cores", "higher") for label, _ in builds]
        for r, (label, _) in zip(results, jars):
            added = [
                measured[label]["cores"] - measured[SPARK_ALONE]["cores"]
                for measured in rounds
                if "error" not in measured[label] and "error" not in measured[SPARK_ALONE]
            ]
            if added:
                r["cores_over_spark_alone"] = statistics.median(added)
        return results

    return row


def scale(shards, busy=False):
    """`shards` shards of 2 records each: driver time per trigger and time to the first batch. With
    `busy`, records keep arriving on every shard (a fifth of the shard count a second, round robin:
    a record on every shard every 5 s, which 2 cores read without a backlog), so the measured
    triggers move blocks of many shards. On `--scale-master` (local[2] or, say,
    local-cluster[2,1,2048]: executors of their own, the connector jar shipped by spark.jars)."""

    def row(args, jars):
        produce = ["--produce", f"s:{max(1, shards // 5)}:100"] if busy else []
        results = []
        for label, jar in jars:
            with BenchKinesis(["--stream", f"s:{shards}:2:100"] + produce) as k:
                spec = {
                    "endpoint": k.endpoint,
                    "stream": "s",
                    "triggers": 6,
                    "timeout_s": (420 if busy else 240) if shards >= 10000 else 150,
                    "options": LOW_LATENCY,
                    "master": args.scale_master,
                    "busy": busy,
                }
                on = "" if args.scale_master == MASTER else f" on {args.scale_master}"
                results.append(one_build(label + on, "scale", jar, spec))
        return results

    return row


def memory(mode):
    """A sink slower than the stream (3 s a batch, fetchBufferSize 20 MB). For EFO the stream is
    larger than the Spark JVM's heap and the benchmark Kinesis pushes as fast as it can: what a
    subscription left unread would buffer in the SDK shows as heap."""

    def row(args, jars):
        per_shard = 50 * 1024 if mode == "polling" else 1024 * 1024
        options = {"fetchBufferSize": "20mb", "maxFetchRate": "2.0", "maxFetchDuration": "1s"}
        if mode == "efo":
            options.update(consumerMode="efo", consumerName=f"bench-{int(time.time())}")
        results = []
        for label, jar in jars:
            with BenchKinesis(["--stream", f"s:4:{per_shard}:{RECORD}"]) as k:
                spec = {"endpoint": k.endpoint, "stream": "s", "sink_sleep_s": 3, "window_s": 45, "options": options}
                results.append({"fetch_buffer_mb": 20, **one_build(label, "memory", jar, spec)})
        return results

    return row


def memory_many_shards(args, jars):
    """A backlog of 2 MiB on each of 500 shards, read by 2 slots: the first round's 2 tasks read 250
    shards each (later rounds, half the slots: one task of 500). A task stops calling once it holds
    64 MiB or its share of fetchBufferSize (50 MB in the first round), so what it holds stays under
    that plus its calls in flight (8 answers of up to 10 MiB; 2 MiB here); a task that checked only
    after a pass over its shards held 250 answers, 500 MiB. The peak heap is the whole local JVM's
    (both tasks, the stored blocks of peak_block_mb, Spark, garbage not yet collected), sampled
    every 0.5 s; the sink is fast."""
    shards, per_shard = 500, 2048
    options = {"fetchBufferSize": "100mb", "maxFetchRate": "2.0", "maxFetchDuration": "10s"}
    results = []
    for label, jar in jars:
        with BenchKinesis(["--stream", f"s:{shards}:{per_shard}:{RECORD}"]) as k:
            spec = {"endpoint": k.endpoint, "stream": "s", "sink_sleep_s": 0, "window_s": 90, "options": options}
            results.append({"fetch_buffer_mb": 100, "shards": shards, **one_build(label, "memory", jar, spec)})
    return results


def sink(limits):
    """Writing small rows (SMALL bytes, data plus partition key) with aggregation none and kpl,
    side by side in one Spark session per build; without and with the per-shard write limits
    (1,000 records and 1 MiB a second per shard, 4 shards), and the ratio kpl / none."""

    def row(args, jars):
        rows = args.sink_rows // (4 if limits else 1)
        streams = [arg for name in ("s-none", "s-kpl", "warm") for arg in ("--stream", f"{name}:4:0:{SMALL}")]
        results = []
        for label, jar in jars:
            with BenchKinesis((["--limits"] if limits else []) + streams) as k:
                spec = {
                    "endpoint": k.endpoint,
                    "stream": "s",
                    "warm_stream": "warm",
                    "rows": rows,
                    "warm_rows": max(2000, rows // 10),
                    "row_size": SMALL,
                    "partitions": 2,
                    # A build from before the aggregation option writes plain records only.
                    "aggregations": ["none", "kpl"]
                    if has_class(jar, "io/github/sparkkinesis/kpl/AggregateBuilder.class")
                    else ["none"],
                    "timeout_s": 900,
                }
                measured = run_spark("sink", jar, spec)
            for aggregation, r in measured.items():
                results.append({"build": f"{label}, aggregation {aggregation}", **r})
            none, kpl = measured.get("none", {}), measured.get("kpl", {})
            if "records_per_s" in none and "records_per_s" in kpl:
                results.append(
                    {
                        "build": f"{label}, kpl / none",
                        "ratio": kpl["records_per_s"] / none["records_per_s"],
                        "cpu_ratio": kpl["records_per_cpu_s"] / none["records_per_cpu_s"],
                    }
                )
        return results

    return row


def gsr_avro(args, jars):
    """Decoding Glue Schema Registry Avro records (from_gsr_avro) next to Spark's from_avro on the
    same records without their header: rows per CPU-second of each, and their ratio (target 0.8)."""
    import pyspark

    version = pyspark.__version__
    scala = "2.12" if version.startswith("3.") else "2.13"
    spec = {"rows": args.gsr_rows, "packages": f"org.apache.spark:spark-avro_{scala}:{version}", "timeout_s": 600}
    return [one_build(label, "gsr_avro", jar, spec) for label, jar in jars if has_schema_registry(jar)]


def has_schema_registry(jar):
    return has_class(jar, "io/github/sparkkinesis/schemaregistry/GsrAvroDecode.class")


ROWS = {
    "backend": backend,
    "calls": calls,
    "polling": throughput("polling"),
    "efo": throughput("efo"),
    "cold-polling": cold("polling"),
    "cold-efo": cold("efo"),
    "cold-polling-limited": cold("polling", batches=20),
    "limits-polling": limits("polling", 1),
    "limits-efo": limits("efo", 3),
    "latency-default": latency({}),
    "latency-low": latency(LOW_LATENCY),
    "latency-realtime": latency_realtime("polling"),
    "latency-realtime-efo": latency_realtime("efo"),
    "pipeline-realtime": pipeline("realtime"),
    "pipeline-micro-batch": pipeline("micro-batch"),
    "latency-floor": spark_floor("foreachBatch"),
    "steady": steady_rates("polling"),
    "steady-efo": steady_rates("efo"),
    "steady-noop": steady,
    "steady-noop-floor": spark_floor("noop"),
    "idle": idle("polling"),
    "idle-efo": idle("efo"),
    "scale-100": scale(100),
    "scale-1000": scale(1000),
    "scale-10000": scale(10000),
    "scale-10000-busy": scale(10000, busy=True),
    "memory": memory("polling"),
    "memory-efo": memory("efo"),
    "memory-many-shards": memory_many_shards,
    "sink": sink(limits=False),
    "sink-limits": sink(limits=True),
    "gsr-avro": gsr_avro,
}


def default_jars():
    """The wheel's jar for the installed pyspark (the wheel carries one per Spark line), then the baseline."""
    from pyspark_kinesis._jar import bundled_jars, jar_path

    jars = [("now", Path(jar_path()))] if bundled_jars() else []
    baseline = ROOT / ".bench" / "baseline.jar"
    if baseline.exists():
        jars.append(("before", baseline))
    return jars


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", nargs="+", choices=list(ROWS), default=list(ROWS))
    parser.add_argument("--jar", action="append", default=[], help="label=path of a connector jar (repeatable)")
    parser.add_argument(
        "--records-per-shard", type=int, default=100000, help="throughput rows: 8 shards x this many 1 KB records"
    )
    parser.add_argument("--gsr-rows", type=int, default=1000000, help="gsr-avro: records decoded by each function")
    parser.add_argument(
        "--sink-rows",
        type=int,
        default=200000,
        help="sink rows: rows written per setting (a quarter with the write limits)",
    )
    parser.add_argument(
        "--warm-rounds",
        type=int,
        default=1,
        help="throughput rows: reads of the warm-up stream before the measured one",
    )
    parser.add_argument(
        "--window-s", type=int, default=30, help="measuring window of the limits, latency, pipeline and idle rows"
    )
    parser.add_argument(
        "--scale-master",
        default=MASTER,
        help="scale rows: the Spark master, e.g. local-cluster[2,1,2048] (two executors of 1 core and 2 GB)",
    )
    parser.add_argument("--steady-shards", type=int, default=4, help="steady rows: shards of the stream")
    parser.add_argument(
        "--steady-rates",
        type=int,
        nargs="+",
        default=[1000],
        help="steady rows: records/s a shard, one run each (e.g. 100 1000)",
    )
    parser.add_argument("--steady-batches", type=int, default=3, help="steady rows: 10-second batches measured")
    parser.add_argument(
        "--steady-window-s",
        type=int,
        default=60,
        help="steady rows: the least seconds of whole batches measured, the same for every build",
    )
    parser.add_argument(
        "--steady-warmup-s",
        type=int,
        default=300,
        help="steady rows: seconds each build's query runs (and at least 3 batches) before the measured batches; "
        "a minute in, the JIT still compiles Spark's per-batch code, which a query that runs for months does not pay",
    )
    parser.add_argument(
        "--idle-warmup-s",
        type=int,
        default=300,
        help="idle rows: seconds the query runs before the window; the JIT still compiles Spark's trigger loop "
        "a minute or two in, which a query that runs for months does not pay",
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=1,
        help="steady and idle rows: rounds of every build, each round in another order; the median run is reported",
    )
    parser.add_argument(
        "--steady-settings",
        nargs="+",
        choices=[name for name, _, _ in STEADY_SETTINGS],
        default=[name for name, _, _ in STEADY_SETTINGS],
        help="steady rows: this connector's settings to read with (each build, each setting)",
    )
    parser.add_argument(
        "--peer",
        default=str(ROOT / ".bench" / "peer.jar"),
        help="steady rows: awslabs' connector jar (make bench-peer), read beside the builds when it exists",
    )
    parser.add_argument(
        "--pipeline-rates",
        type=int,
        nargs="+",
        default=[1000, 10000],
        help="pipeline rows: the records/s put into the first stream, one run each",
    )
    parser.add_argument(
        "--results-dir",
        type=Path,
        default=ROOT / "docs" / "benchmarks",
        help="where each row's current results file <row>.md (and chart) goes, replacing the last run's",
    )
    args = parser.parse_args()
    # Every row's Spark session is made by pyspark_kinesis (make bench installs its wheel first):
    # without it each row would fail in turn and replace its results page with the failure.
    if importlib.util.find_spec("pyspark_kinesis") is None:
        parser.error("the pyspark_kinesis package is not installed: run make wheel (make bench does)")
    jars = []
    for jar in args.jar:
        label, _, path = jar.partition("=")
        if not label or not path or not Path(path).is_file():
            parser.error(f"--jar {jar}: expected label=path of a connector jar that exists")
        jars.append((label, path))
    jars = jars or default_jars()
    if not jars:
        parser.error("no connector jar: run make wheel, or pass --jar label=path")

    # The run's switches that differ from the defaults, so that each row's command repeats it.
    changed = "".join(
        f" --{name.replace('_', '-')} {shlex.quote(str(getattr(args, name)))}"
        for name in (
            "records_per_shard",
            "sink_rows",
            "warm_rounds",
            "window_s",
            "scale_master",
            "steady_shards",
            "steady_batches",
            "steady_warmup_s",
            "steady_window_s",
            "repeats",
            "idle_warmup_s",
        )
        if getattr(args, name) != parser.get_default(name)
    )
    if args.steady_settings != parser.get_default("steady_settings"):
        changed += " --steady-settings " + " ".join(map(shlex.quote, args.steady_settings))
    if args.steady_rates != parser.get_default("steady_rates"):
        changed += " --steady-rates " + " ".join(map(str, args.steady_rates))
    if args.pipeline_rates != parser.get_default("pipeline_rates"):
        changed += " --pipeline-rates " + " ".join(map(str, args.pipeline_rates))
    started = datetime.now(timezone.utc)
    # The Spark JVM's own options are part of what was measured (bench_spark.py passes them on).
    java_opts = f'BENCH_JAVA_OPTS="{os.environ["BENCH_JAVA_OPTS"]}" ' if os.environ.get("BENCH_JAVA_OPTS") else ""
    rows = []
    for name in args.rows:
        print(f"bench: {name} ...", flush=True)
        began = time.time()
        try:
            results = ROWS[name](args, jars)
        except Exception as e:  # one failed row must not lose the others
            sys.stderr.write(f"bench: {name} failed:\n{e}\n")
            results = [{"build": "-", "error": failure_cause(e)}]
        rows.append(
            {
                "row": name,
                "seconds": time.time() - began,
                "results": results,
                "command": f'{java_opts}make bench BENCH_ARGS="--rows {name}{changed}"',
            }
        )
        # After every row: a run stopped half-way keeps what it measured.
        (out,) = write_report(rows[-1:], jars, started, args.results_dir)
        print(out.read_text())
        png = out.with_suffix(".png")
        print(f"written to {out}" + (f" and {png}" if png.exists() else ""))


if __name__ == "__main__":
    main()
