# SPDX-License-Identifier: Apache-2.0
"""One benchmark row inside its own Spark session (local[2]), run by bench.py as
`python bench_spark.py '<json spec>'`; prints `RESULT <json>` last. The connector jar is the one
in $PYSPARK_KINESIS_JAR, so rows of two builds of the connector run side by side in one run.
CPU is the Spark JVM's, from /proc/<pid>/stat."""

import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_backend import cpu_seconds, stat_cpu_seconds  # noqa: E402
from bench_gsr import gsr_avro  # noqa: E402
from bench_pipeline import pipeline  # noqa: E402
from host_speed import yardstick  # noqa: E402

SHADED_SDK = "io.github.sparkkinesis.shaded.software.amazon.awssdk."


def percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))] if ordered else None


def latency_figures(ms, cores, cores_by_kind, host_unit_ms=None):
    """A latency row's figures: how many records, their percentiles and the cores the query used."""
    return {
        "records": len(ms),
        "p50_ms": percentile(ms, 50),
        "p90_ms": percentile(ms, 90),
        "p99_ms": percentile(ms, 99),
        "max_ms": max(ms) if ms else None,
        "cores": cores,
        "cores_by_kind": cores_by_kind,
        "host_unit_ms": host_unit_ms,
    }


def session(slots=2, driver_class_path=None, master=None, packages=None):
    """A Spark session on local[slots], or on `master` (say local-cluster[2,1,2048], whose executors
    get the connector jar through the spark.jars that pyspark_kinesis.configure sets)."""
    from pyspark.sql import SparkSession

    import pyspark_kinesis

    builder = (
        SparkSession.builder.master(master or f"local[{slots}]")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", "2g")
        .config("spark.sql.shuffle.partitions", "2")
        # Every batch's progress is kept, so rows are counted over runs of more than 100 batches.
        .config("spark.sql.streaming.numRecentProgressUpdates", "1000000")
    )
    if os.environ.get("BENCH_JAVA_OPTS"):  # e.g. -XX:+PrintCompilation, kept with BENCH_JVM_OUT
        builder = builder.config("spark.driver.extraJavaOptions", os.environ["BENCH_JAVA_OPTS"])
    if packages:  # Spark packages a row compares with (spark-avro's from_avro for gsr-avro)
        builder = builder.config("spark.jars.packages", packages)
    if driver_class_path:  # a JVM sink of the row's own (the real-time latency rows)
        builder = builder.config("spark.driver.extraClassPath", driver_class_path)
    spark = pyspark_kinesis.configure(builder).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    assert spark._jvm is not None
    return spark, spark._jvm.java.lang.ProcessHandle.current().pid()


def reader(spark, spec, **extra):
    options = {
        "streamName": spec["stream"],
        "endpoint": spec["endpoint"],
        "region": "us-east-1",
        "initialPosition": "trim_horizon",
        **spec.get("options", {}),
        **extra,
    }
    return spark.readStream.format("kinesis").options(**options).load()


def batches_run(query):
    """Batches that read something so far."""
    return sum(1 for p in query.recentProgress if p.get("numInputRows"))


def rows_read(query):
    return sum(p.get("numInputRows", 0) for p in query.recentProgress)


def source_metric(query, name):
    progress = query.lastProgress or {}
    for source in progress.get("sources", []):
        value = (source.get("metrics") or {}).get(name)
        if value is not None:
            return float(value)
    return None


def thread_cpu(pid):
    """CPU seconds of a process's threads: {thread id: (name with digits folded, seconds)}, from /proc."""
    threads = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            stat = (task / "stat").read_text()
            name = "".join("N" if c.isdigit() else c for c in stat[stat.index("(") + 1 : stat.rindex(")")])
            threads[task.name] = (name, stat_cpu_seconds(stat))
    return threads


def cpu_by_thread_name(before, after):
    """The CPU each thread name (its last name: pools rename their threads) spent between two thread_cpu()."""
    spent = {}
    for tid, (name, seconds) in after.items():
        spent[name] = spent.get(name, 0.0) + seconds - before.get(tid, (name, 0.0))[1]
    return sorted(((s, n) for n, s in spent.items()), reverse=True)


@contextlib.contextmanager
def profiled(pid):
    """Watches the measured window: yields (thread CPU at its start, thread CPU as last seen), the
    latter sampled every half second, so that threads that end within the window (the query's own
    thread, an SDK client's event loops) are still counted by name. Also writes a JDK Flight
    Recorder profile when BENCH_JFR names a file, and the JVM's CPU by thread on stderr when
    BENCH_THREADS is set (JFR samples Java code only; GC, JIT and the kernel's share show up by
    thread). With BENCH_JVM_OUT, the JVM's uptime at the window's start and end, so that a log the
    JVM keeps by uptime (-XX:+PrintCompilation) can be cut to the window."""
    profile, by_thread = os.environ.get("BENCH_JFR"), os.environ.get("BENCH_THREADS")
    started = jvm_uptime(pid) if os.environ.get("BENCH_JVM_OUT") else None
    if profile:
        settings = os.environ.get("BENCH_JFR_SETTINGS", "profile")  # or a .jfc file, e.g. with every compilation
        subprocess.run(
            ["jcmd", str(pid), "JFR.start", "name=bench", f"settings={settings}", f"filename={profile}"],
            check=True,
            capture_output=True,
        )
    before = thread_cpu(pid)
    seen, done = dict(before), threading.Event()

    def sample():
        while not done.wait(0.5):
            seen.update(thread_cpu(pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        yield before, seen
    finally:
        done.set()
        sampler.join()
        seen.update(thread_cpu(pid))
        if started is not None:
            sys.stderr.write(f"window-uptime-s {started} {jvm_uptime(pid)}\n")
        if by_thread:
            spent = cpu_by_thread_name(before, seen)
            total = sum(s for s, _ in spent)
            for seconds, name in spent[:20]:
                sys.stderr.write(f"thread-cpu {seconds:7.2f} s {100 * seconds / total:5.1f}%  {name}\n")
        if profile:
            subprocess.run(
                ["jcmd", str(pid), "JFR.stop", "name=bench", f"filename={profile}"], check=True, capture_output=True
            )


def jvm_uptime(pid):
    """The JVM's uptime in seconds, as `jcmd` reads it (the clock of its compilation log)."""
    out = subprocess.run(["jcmd", str(pid), "VM.uptime"], check=True, capture_output=True, text=True).stdout
    return float(out.strip().splitlines()[-1].split()[0])


def read_once(spark, spec, checkpoint, **extra):
    query = (
        reader(spark, spec, **extra)
        .writeStream.format("noop")
        .trigger(availableNow=True)
        .option("checkpointLocation", str(checkpoint))
        .start()
    )
    query.awaitTermination()
    return query


def cpu_kinds(spent):
    """CPU seconds by kind of thread: Spark's tasks (reading, prefetching, with a prefetch task's
    calls in flight on `kinesis-call-<n>` threads), the AWS SDK's HTTP threads (enhanced fan-out's
    event loops), the JIT compiler, the garbage collector, and the rest (driver, RPC, listeners)."""
    kinds = {"tasks": 0.0, "sdk": 0.0, "jit": 0.0, "gc": 0.0, "other": 0.0}
    for seconds, name in spent:
        kind = (
            "tasks"
            if name.startswith(("Executor task", "kinesis-call-"))
            else "jit"
            if "CompilerThre" in name
            else "sdk"
            if name.startswith(("aws-java-sdk", "sdk-async-response"))
            else "gc"
            if name.startswith(("GC Thread", "GN ", "VM Thread"))
            else "other"
        )
        kinds[kind] += seconds
    return kinds


def cpu_window(pid, seconds):
    """Sleeps `seconds` while a query runs: (start, end, cores of the JVM, cores by kind of thread,
    the host's yardstick over the window in CPU-ms, see host_speed)."""
    with profiled(pid) as (before, seen), yardstick() as host:
        cpu, t0 = cpu_seconds(pid), time.time()
        time.sleep(seconds)
        t1 = time.time()
        cores = (cpu_seconds(pid) - cpu) / (t1 - t0)
    kinds = cpu_kinds(cpu_by_thread_name(before, seen))
    return t0, t1, cores, {kind: spent / (t1 - t0) for kind, spent in kinds.items()}, host.ms


def throughput(spark, pid, spec, workdir):
    """Everything in the stream, once (Trigger.AvailableNow), into the noop sink, after the same
    over a stream as big (`warm_stream`), so that class loading and most JIT compiling are done.
    The JVM's CPU is also split by kind of thread: the JIT still compiles Spark's own per-job code
    (closure cleaning, task serialization) during the run, the same for every build."""
    for n in range(spec.get("warm_rounds", 1)):
        read_once(spark, spec, workdir / f"warm{n}", streamName=spec["warm_stream"])
    with profiled(pid) as (before, seen):
        cpu, began = cpu_seconds(pid), time.time()
        query = read_once(spark, spec, workdir / "checkpoint")
        seconds, cpu = time.time() - began, cpu_seconds(pid) - cpu
    kinds = cpu_kinds(cpu_by_thread_name(before, seen))
    # Threads gone between two samples took the rest (their last half second, or all of a short one).
    kinds["exited"] = max(0.0, cpu - sum(kinds.values()))
    records = rows_read(query)
    return {
        "records": records,
        "batches": batches_run(query),
        # With the batches, the Spark jobs of the backfill (each costs Spark the same, whatever it reads).
        "prefetch_rounds": source_metric(query, "prefetchRounds"),
        "seconds": seconds,
        "cpu_seconds": cpu,
        "cpu_by_kind": kinds,
        "records_per_s": records / seconds,
        "mb_per_s": records * spec["record_size"] / seconds / 1e6,
        "records_per_cpu_s": records / cpu,
    }


def sync_http(jvm, sdk):
    """The HTTP client the connector jar builds its sync clients on: its own (client/http/SyncHttp), or in
    a jar from before it, the JDK's URL connection or Apache HttpClient, whichever it carries."""
    seconds = jvm.java.time.Duration.ofSeconds
    # py4j's stand-in for a class or method the jar does not have is not callable.
    for package in (jvm.io.github.sparkkinesis.client.http, jvm.io.github.sparkkinesis.client):
        with contextlib.suppress(TypeError):
            return package.SyncHttp.builder(seconds(10), seconds(60), jvm.scala.Option.empty())
    with contextlib.suppress(TypeError):
        return sdk("http.urlconnection.UrlConnectionHttpClient").builder()
    return sdk("http.apache.ApacheHttpClient").builder().expectContinueEnabled(False)


def bare_client(spark, spec):
    """A plain Kinesis client of the SDK the connector jar carries, on its HTTP client: (client, sdk),
    where sdk(path) is a class of that SDK (shaded) by its unshaded path."""
    jvm = spark._jvm

    def sdk(path):
        found = jvm
        for part in (SHADED_SDK + path).split("."):
            found = getattr(found, part)
        return found

    client = (
        sdk("services.kinesis.KinesisClient")
        .builder()
        .endpointOverride(jvm.java.net.URI.create(spec["endpoint"]))
        .region(sdk("regions.Region").of("us-east-1"))
        .credentialsProvider(
            sdk("auth.credentials.StaticCredentialsProvider").create(
                sdk("auth.credentials.AwsBasicCredentials").create("bench", "bench")
            )
        )
        .httpClientBuilder(sync_http(jvm, sdk))
        .build()
    )
    return client, sdk


def calls(spark, pid, spec, workdir):
    """What a call costs besides Kinesis' own time: `calls` GetRecords one after the other at an
    empty shard's tip (the benchmark Kinesis answers on loopback in microseconds), on a plain
    client of the SDK the jar carries over its HTTP client; wall and CPU time per call, less
    what as many calls from Python into the JVM take without one."""
    client, sdk = bare_client(spark, spec)
    model = "services.kinesis.model."
    shard = (
        client.listShards(sdk(model + "ListShardsRequest").builder().streamName(spec["stream"]).build())
        .shards()
        .get(0)
        .shardId()
    )
    start = (
        sdk(model + "GetShardIteratorRequest")
        .builder()
        .streamName(spec["stream"])
        .shardId(shard)
        .shardIteratorType(sdk(model + "ShardIteratorType").LATEST)
        .build()
    )
    it = client.getShardIterator(start).shardIterator()

    requests = sdk(model + "GetRecordsRequest")

    def call(n):
        nonlocal it
        for _ in range(n):
            it = client.getRecords(requests.builder().shardIterator(it).build()).nextShardIterator()

    def bridge(n):  # the same calls into the JVM, without GetRecords
        for _ in range(n):
            requests.builder().shardIterator(it).build().shardIterator()

    def timed(run, n):
        cpu, began = cpu_seconds(pid), time.perf_counter()
        run(n)
        return (time.perf_counter() - began) / n, (cpu_seconds(pid) - cpu) / n

    n = spec["calls"]
    call(n)  # warm-up
    wall, cpu = timed(call, n)
    bridge_wall, bridge_cpu = timed(bridge, n)
    return {"calls": n, "ms_per_call": (wall - bridge_wall) * 1e3, "cpu_ms_per_call": (cpu - bridge_cpu) * 1e3}


def ceiling_polling(spark, pid, spec, workdir):
    """A plain GetRecords loop per shard in this JVM, on the SDK the connector jar carries."""
    client, sdk = bare_client(spark, spec)
    model = "services.kinesis.model."
    shards = [
        s.shardId()
        for s in client.listShards(
            sdk(model + "ListShardsRequest").builder().streamName(spec["stream"]).build()
        ).shards()
    ]
    counts = []

    def read(shard, stream=spec["stream"], records=spec["records_per_shard"]):
        it = client.getShardIterator(
            sdk(model + "GetShardIteratorRequest")
            .builder()
            .streamName(stream)
            .shardId(shard)
            .shardIteratorType(sdk(model + "ShardIteratorType").TRIM_HORIZON)
            .build()
        ).shardIterator()
        n = 0
        while n < records:
            request = sdk(model + "GetRecordsRequest").builder().shardIterator(it).limit(10000).build()
            response = client.getRecords(request)
            n += response.records().size()
            it = response.nextShardIterator()
        counts.append(n)

    for _ in range(spec.get("warm_rounds", 1)):  # warm up, as the connector's row does
        for shard in shards:
            read(shard, spec["warm_stream"], spec["warm_records_per_shard"])
    counts.clear()
    cpu, began = cpu_seconds(pid), time.time()
    threads = [threading.Thread(target=read, args=(s,)) for s in shards]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    seconds, cpu = time.time() - began, cpu_seconds(pid) - cpu
    records = sum(counts)
    return {
        "records": records,
        "seconds": seconds,
        "cpu_seconds": cpu,
        "records_per_s": records / seconds,
        "mb_per_s": records * spec["record_size"] / seconds / 1e6,
        "records_per_cpu_s": records / cpu,
    }


def at_limits(spark, pid, spec, workdir):
    """`queries` queries at once (EFO: one consumer each) for a window after a warm-up: MB/s per shard."""
    queries = []
    for i in range(spec["queries"]):
        extra = {"consumerName": f"bench-{i}-{int(time.time())}"} if spec.get("efo") else {}
        queries.append(
            reader(spark, spec, **extra)
            .writeStream.format("noop")
            .option("checkpointLocation", str(workdir / f"checkpoint-{i}"))
            .start()
        )
    # The warm-up counts from every query's first progress (EFO registers consumers first).
    deadline = time.time() + 180
    while any(q.lastProgress is None for q in queries) and time.time() < deadline:
        time.sleep(0.5)
    time.sleep(spec["warmup_s"])
    before = [fetched(q) for q in queries]
    time.sleep(spec["window_s"])
    after = [fetched(q) for q in queries]
    throttles = [source_metric(q, "throttleEvents") or 0 for q in queries]
    for q in queries:
        q.stop()
    # What the query read from Kinesis, not what its batches consumed: a batch may drain
    # records prefetched before the window.
    per_shard = [(a[1] - b[1]) / (a[0] - b[0]) / spec["shards"] for a, b in zip(after, before)]
    return {
        "mib_per_s_per_shard": [x / 2**20 for x in per_shard],
        "pct_of_2mib": [100 * x / (2 * 2**20) for x in per_shard],
        "throttle_events": throttles,
    }


def fetched(query):
    """(when, bytes read from Kinesis so far) as of the query's last progress (metric fetchedBytes)."""
    from datetime import datetime

    progress = query.lastProgress or {}
    when = datetime.fromisoformat(progress["timestamp"].replace("Z", "+00:00")).timestamp()
    return when, source_metric(query, "fetchedBytes") or 0.0


def latency(spark, pid, spec, workdir):
    """Put (the time in each payload) to visible in a foreachBatch sink, of the records put during
    the window (a backlog of the warm-up does not count), and the JVM's CPU over the window."""
    seen, lock = [], threading.Lock()  # (put time, arrival) of every record
    batches = []  # when each batch reached the sink

    def sink(batch, batch_id):
        arrived = time.time()
        put_times = [float(r.body) for r in batch.selectExpr("CAST(data AS STRING) AS body").collect()]
        with lock:
            seen.extend((t, arrived) for t in put_times)
            batches.append(arrived)

    query = (
        reader(spark, spec, initialPosition="latest")
        .writeStream.foreachBatch(sink)
        .option("checkpointLocation", str(workdir / "checkpoint"))
        .start()
    )
    # The warm-up counts from the first batch: a fresh JVM's first batch (class loading, JIT) took
    # 10-30 s on the loaded machine, and the backlog it leaves is not the steady state measured.
    deadline = time.time() + spec.get("first_batch_s", 180)
    while not seen and time.time() < deadline:
        time.sleep(0.5)
    time.sleep(spec["warmup_s"])
    t0, t1, cores, cores_by_kind, host_unit_ms = cpu_window(pid, spec["window_s"])
    # The window's last records may still be on their way: wait until later ones arrived.
    deadline = t1 + spec.get("drain_s", 60)
    while time.time() < deadline:
        with lock:
            if any(t > t1 + 1 for t, _ in seen):
                break
        time.sleep(0.5)
    query.stop()
    with lock:
        ms = [(arrived - t) * 1000 for t, arrived in seen if t0 <= t < t1]
        batches_per_s = sum(1 for at in batches if t0 <= at < t1) / (t1 - t0)
    return {**latency_figures(ms, cores, cores_by_kind, host_unit_ms), "batches_per_s": batches_per_s}


def latency_realtime(spark, pid, spec, workdir):
    """The latency row in real-time mode: put (the time in each payload) to a JVM foreach sink's
    process() (jvm/LatencySink.java: Spark takes no foreachBatch in real-time mode), of the
    records put during the window, and the JVM's CPU over the window, split by kind of thread.
    The batch lasts longer than warm-up and window: a batch boundary's pause is
    `make bench-realtime`'s to measure."""
    from realtime_latency import MIN_BATCH_DURATION, deliveries, start_jvm_foreach

    spark.conf.set(MIN_BATCH_DURATION, str(spec["batch_duration_s"] * 1000))
    sink = workdir / "sink"
    sink.mkdir()
    query = start_jvm_foreach(
        spark,
        reader(spark, spec, initialPosition="latest"),
        sink,
        workdir / "checkpoint",
        "realtime",
        spec["batch_duration_s"],
    )
    deadline = time.time() + spec.get("first_batch_s", 180)
    while not deliveries(sink) and time.time() < deadline and not query.exception():
        time.sleep(0.5)
    time.sleep(spec["warmup_s"])
    t0, t1, cores, cores_by_kind, host_unit_ms = cpu_window(pid, spec["window_s"])
    deadline = t1 + spec.get("drain_s", 60)
    while time.time() < deadline and not any(float(r["data"]) > t1 + 1 for r in deliveries(sink)):
        time.sleep(0.5)
    error = query.exception()
    query.stop()
    if error:
        raise RuntimeError(f"the real-time query failed: {error}")
    first = {}  # a record delivered twice counts at its first delivery
    for r in deliveries(sink):
        put = float(r["data"])
        if t0 <= put < t1:
            first[r["seq"]] = min(first.get(r["seq"], float("inf")), (r["sinkTime"] - put) * 1000)
    return latency_figures(list(first.values()), cores, cores_by_kind, host_unit_ms)


def steady_cost(query, pid, spec):
    """Cores, batches/s and rows/s of a running query over a window after a warm-up; stops it."""
    time.sleep(spec["warmup_s"])
    done = rows_read(query), batches_run(query)
    t0, t1, cores, cores_by_kind, host_unit_ms = cpu_window(pid, spec["window_s"])
    rows, batches = rows_read(query) - done[0], batches_run(query) - done[1]
    query.stop()
    return {
        "cores": cores,
        "cores_by_kind": cores_by_kind,
        "host_unit_ms": host_unit_ms,
        "seconds": t1 - t0,
        "batches_per_s": batches / (t1 - t0),
        "rows_per_s": rows / (t1 - t0),
    }


def spark_floor(spark, pid, spec, workdir):
    """Spark's own cost of a steady query: the rate source at `rows_per_s` into the same sink as
    the Kinesis row it is set against (the latency rows' foreachBatch, or noop), so the cores a
    Kinesis query uses can be compared with what any source pays per batch (planning, the
    checkpoint's offset and commit logs, the sink)."""

    def sink(batch, batch_id):
        batch.selectExpr("CAST(value AS STRING) AS body").collect()

    stream = spark.readStream.format("rate").option("rowsPerSecond", spec["rows_per_s"]).load().writeStream
    stream = stream.foreachBatch(sink) if spec["sink"] == "foreachBatch" else stream.format("noop")
    if spec.get("trigger_s"):
        stream = stream.trigger(processingTime=f"{spec['trigger_s']} seconds")
    return steady_cost(stream.option("checkpointLocation", str(workdir / "checkpoint")).start(), pid, spec)


def steady(spark, pid, spec, workdir):
    """A query reading a stream of `rows_per_s` into the noop sink: the cores it uses, without a
    sink's own cost."""
    query = (
        reader(spark, spec, initialPosition="latest")
        .writeStream.format("noop")
        .option("checkpointLocation", str(workdir / "checkpoint"))
        .start()
    )
    return steady_cost(query, pid, spec)


def steady_source(spark, spec):
    """The stream read from its tip, by this connector or (`peer`) by awslabs' connector 2.x,
    with the spec's options, by polling or (`efo`) enhanced fan-out."""
    if not spec.get("peer"):
        return reader(spark, spec, initialPosition="latest")
    options = {
        "kinesis.streamName": spec["stream"],
        "kinesis.endpointUrl": spec["endpoint"],
        "kinesis.region": "us-east-1",
        "kinesis.startingPosition": "LATEST",
        **(
            {"kinesis.consumerType": "SubscribeToShard", "kinesis.consumerName": spec["consumer"]}
            if spec.get("efo")
            else {}
        ),
        **spec.get("options", {}),
    }
    return spark.readStream.format("aws-kinesis").options(**options).load()


def steady_rate(spark, pid, spec, workdir):
    """A stream at a steady pace read into noop with a processing-time trigger: after
    `warmup_batches` and at least `warmup_s` seconds of the query, the JVM's CPU over at least
    `batches` whole batches spanning at least `window_s` seconds (from the end of one batch to the
    end of another), the records those batches read, and the Kinesis calls made meanwhile. The
    warm-up and the window count time as well as batches: the JIT still compiles Spark's and the
    SDK's code a minute into a query, and a build whose batches take longer must not be measured
    later or longer, with less of it left."""
    query = (
        steady_source(spark, spec)
        .writeStream.format("noop")
        .trigger(processingTime=f"{spec['trigger_s']} seconds")
        .option("checkpointLocation", str(workdir / "checkpoint"))
        .start()
    )

    def batches():  # counted in the JVM: Python's recentProgress has Spark write every progress as JSON
        return len(query._jsq.recentProgress())

    def wait_for_batches(n):
        deadline = time.time() + (n + 3) * spec["trigger_s"] + 120
        while batches() < n:
            if query.exception():
                raise RuntimeError(f"the steady query failed: {query.exception()}")
            if time.time() > deadline:
                raise RuntimeError(f"no {n} batches within the time allowed ({batches()} ran)")
            time.sleep(0.25)

    started = time.time()
    wait_for_batches(spec["warmup_batches"])
    if time.time() - started < spec.get("warmup_s", 0):
        while time.time() - started < spec.get("warmup_s", 0):
            if query.exception():
                raise RuntimeError(f"the steady query failed: {query.exception()}")
            time.sleep(0.25)
        wait_for_batches(batches() + 1)  # the window starts at the end of a batch
    # (else a warm-up batch just ended past warmup_s: the window starts there, not a batch later)
    first = batches()
    with profiled(pid) as (before, seen), yardstick() as host:
        calls_before, began = calls_so_far(spec, pid), time.time()
        wait_for_batches(first + spec["batches"])
        # Whole batches over at least window_s, the same span of time for every build: a build
        # whose batches take longer is not measured over a longer window, with less JIT in it.
        while time.time() - began < spec.get("window_s", 0):
            wait_for_batches(batches() + 1)
        last = batches()
        calls_after, seconds = calls_so_far(spec, pid), time.time() - began
    progress = query.recentProgress[first:last]
    query.stop()
    cpu = calls_after["cpu"] - calls_before["cpu"]
    kinds = cpu_kinds(cpu_by_thread_name(before, seen))
    records = sum(p.get("numInputRows", 0) for p in progress)
    jit = kinds["jit"]
    operation = "SubscribeToShard" if spec.get("efo") else "GetRecords"
    made = calls_after.get(operation, 0) - calls_before.get(operation, 0)
    return {
        "records": records,
        "seconds": seconds,
        "cpu_seconds": cpu,
        "cores": cpu / seconds,
        "cores_by_kind": {kind: spent / seconds for kind, spent in kinds.items()},
        "host_unit_ms": host.ms,
        "records_per_cpu_s": records / max(cpu, 1e-9),
        # The JIT still compiles Spark's and the JDK's code minutes into a query; a query that runs for months does not.
        "records_per_cpu_s_besides_jit": records / max(cpu - jit, 1e-9),
        "calls": made,
        "calls_per_1000_records": 1000 * made / max(records, 1),
        "calls_by_operation": {
            op: n - calls_before.get(op, 0)
            for op, n in calls_after.items()
            if op not in ("at", "cpu") and n != calls_before.get(op, 0)
        },
        "prefetch_rounds": source_metric(query, "prefetchRounds"),
    }


def idle(spark, pid, spec, workdir):
    """A query on a stream that receives nothing: the JVM's CPU after a warm-up. With `spark_alone`,
    Spark without the connector: a query on a socket that sends nothing, a trigger a second (a
    directory's source would list it at every trigger, which costs more than the query)."""
    with contextlib.ExitStack() as stack:
        if spec.get("spark_alone"):
            server = stack.enter_context(socket.create_server(("127.0.0.1", 0)))
            source = spark.readStream.format("socket").option("host", "127.0.0.1")
            source = source.option("port", server.getsockname()[1]).load()
            stream = source.writeStream.trigger(processingTime="1 second")
        else:
            stream = reader(spark, spec).writeStream
        query = stream.format("noop").option("checkpointLocation", str(workdir / "checkpoint")).start()
        if spec.get("spark_alone"):
            stack.enter_context(server.accept()[0])  # held open, silent, until the query stops
        time.sleep(spec["warmup_s"])
        _, _, cores, cores_by_kind, host_unit_ms = cpu_window(pid, spec["window_s"])
        query.stop()
    return {"cores": cores, "cores_by_kind": cores_by_kind, "host_unit_ms": host_unit_ms}


def input_rows_so_far(query):
    """The input rows of every progress so far, asked of the JVM's objects: Python's recentProgress
    and lastProgress have Spark turn whole progresses into JSON, three offsets of every shard each,
    and polling them at 10,000 shards cost the driver more than the query did."""
    progresses = query._jsq.recentProgress()
    return [progresses[i].numInputRows() for i in range(len(progresses))]


def calls_so_far(spec, pid):
    """The calls the benchmark Kinesis has answered so far, by operation, with the time and the
    Spark JVM's CPU seconds."""
    import urllib.request

    with urllib.request.urlopen(spec["endpoint"] + "/calls", timeout=10) as answer:
        return {**json.loads(answer.read()), "at": time.time(), "cpu": cpu_seconds(pid)}


def calls_between(before, after):
    """GetRecords calls a second between two `calls_so_far`, and the Spark JVM's CPU ms per call."""
    calls = after.get("GetRecords", 0) - before.get("GetRecords", 0)
    return calls / max(after["at"] - before["at"], 1e-3), (after["cpu"] - before["cpu"]) * 1000 / max(calls, 1)


def scale(spark, pid, spec, workdir):
    """Many shards: driver time per trigger, driver heap, time to the first batch, and the GetRecords
    calls a second before it and after it. With `busy`, only the triggers that read records count
    (Spark also reports a trigger that found none now and then)."""
    busy = spec.get("busy", False)
    began = time.time()
    at_start = calls_so_far(spec, pid)
    with profiled(pid):
        query = (
            reader(spark, spec)
            .writeStream.format("noop")
            .option("checkpointLocation", str(workdir / "checkpoint"))
            .start()
        )
        first = at_first = None
        counted = 0
        while time.time() - began < spec["timeout_s"] and counted < spec["triggers"]:
            rows = input_rows_so_far(query)
            if first is None and any(rows):
                first = time.time() - began
                at_first = calls_so_far(spec, pid)
            counted = sum(1 for r in rows if r) if busy else len(rows)
            time.sleep(0.2)
        progress = query.recentProgress
        at_end = calls_so_far(spec, pid)
        query.stop()
    if first is None and rows_read(query) > 0:
        first = time.time() - began
    measured = [p for p in progress if p.get("numInputRows")][1:] if busy else progress[1:]
    durations = [p.get("durationMs", {}) for p in measured]
    # A build that waits for records in latestOffset when it finds none says how long (idleWaitMs): not work.
    waits = [float(((p.get("sources") or [{}])[0].get("metrics") or {}).get("idleWaitMs", 0)) for p in measured]
    driver = [d.get("latestOffset", 0) - w + d.get("queryPlanning", 0) for d, w in zip(durations, waits)]

    def median(values):  # None when no trigger after the first came within the timeout
        values = list(values)
        return statistics.median(values) if values else None

    calls = {}
    if at_first is not None:  # how often shards were polled, and at what CPU a call
        before_rate, before_cpu = calls_between(at_start, at_first)
        after_rate, after_cpu = calls_between(at_first, at_end)
        calls = {
            "get_records_per_s_to_first": before_rate,
            "cpu_ms_per_get_records_to_first": before_cpu,
            "get_records_per_s_after": after_rate,
            "cpu_ms_per_get_records_after": after_cpu,
        }
    spark._jvm.java.lang.System.gc()
    runtime = spark._jvm.java.lang.Runtime.getRuntime()
    return {
        "triggers": len(measured) + 1,
        "driver_ms_per_trigger": median(driver),
        "latest_offset_ms": median(d.get("latestOffset", 0) for d in durations),
        "idle_wait_ms": median(waits),
        "planning_ms": median(d.get("queryPlanning", 0) for d in durations),
        "add_batch_ms": median(d.get("addBatch", 0) for d in durations),
        "first_batch_s": first,
        "records": rows_read(query),
        "driver_heap_mb": (runtime.totalMemory() - runtime.freeMemory()) / 2**20,
        **calls,
    }


def memory(spark, pid, spec, workdir):
    """A sink slower than the stream: the most block-manager memory the prefetched records took."""

    def sink(batch, batch_id):
        batch.count()
        time.sleep(spec["sink_sleep_s"])

    query = (
        reader(spark, spec)
        .writeStream.foreachBatch(sink)
        .option("checkpointLocation", str(workdir / "checkpoint"))
        .start()
    )
    peak_storage, peak_heap, began = 0, 0, time.time()
    runtime = spark._jvm.java.lang.Runtime.getRuntime()
    while time.time() - began < spec["window_s"]:
        status = spark._jsc.sc().getExecutorMemoryStatus()
        values = status.values().iterator()
        used = 0
        while values.hasNext():
            pair = values.next()
            used += pair._1() - pair._2()
        peak_storage = max(peak_storage, used)
        peak_heap = max(peak_heap, runtime.totalMemory() - runtime.freeMemory())
        time.sleep(0.5)
    records = rows_read(query)
    query.stop()
    return {"peak_block_mb": peak_storage / 2**20, "peak_heap_mb": peak_heap / 2**20, "records": records}


def kinesis_records(spec, stream):
    """How many Kinesis records a stream holds, read back with boto3 (aggregates count once)."""
    import boto3

    client = boto3.client("kinesis", endpoint_url=spec["endpoint"], region_name="us-east-1")
    total = 0
    for shard in client.list_shards(StreamName=stream)["Shards"]:
        it = client.get_shard_iterator(StreamName=stream, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON")[
            "ShardIterator"
        ]
        while it:
            response = client.get_records(ShardIterator=it, Limit=10000)
            total += len(response["Records"])
            if not response["Records"] and response.get("MillisBehindLatest", 0) == 0:
                break
            it = response.get("NextShardIterator")
    return total


def sink(spark, pid, spec, workdir):
    """`rows` rows of `row_size` bytes (data plus a distinct partition key) written with
    df.write.format("kinesis") in `partitions` tasks, once per `aggregations` setting into a
    stream of its own (`<stream>-<setting>`), each after a warm-up write of the same setting:
    rows/s and rows per CPU-second of the Spark JVM, and the Kinesis records they became."""
    from pyspark.sql import functions as F

    def frame(rows):
        key = F.col("id").cast("string")
        return spark.range(rows, numPartitions=spec["partitions"]).select(
            key.alias("partitionKey"), F.lpad(key, spec["row_size"] - 7, "x").alias("data")
        )

    def aggregation_option(aggregation):
        # none is the default, so a build from before the option is measured too.
        return {} if aggregation == "none" else {"aggregation": aggregation}

    def write(df, stream, aggregation):
        (
            df.write.format("kinesis")
            .option("streamName", stream)
            .option("endpoint", spec["endpoint"])
            .option("region", "us-east-1")
            .options(**aggregation_option(aggregation), **spec.get("options", {}))
            .save()
        )

    results = {}
    for aggregation in spec["aggregations"]:
        try:
            write(frame(spec["warm_rows"]), spec["warm_stream"], aggregation)
            measured = frame(spec["rows"]).cache()
            measured.count()
            cpu, began = cpu_seconds(pid), time.time()
            write(measured, f"{spec['stream']}-{aggregation}", aggregation)
            seconds, cpu = time.time() - began, cpu_seconds(pid) - cpu
            measured.unpersist()
            results[aggregation] = {
                "records": spec["rows"],
                "seconds": seconds,
                "cpu_seconds": cpu,
                "records_per_s": spec["rows"] / seconds,
                "records_per_cpu_s": spec["rows"] / cpu,
                "kinesis_records": kinesis_records(spec, f"{spec['stream']}-{aggregation}"),
            }
        except Exception as e:  # an older build without the option: the other setting still counts
            results[aggregation] = {"error": str(e).strip().splitlines()[0][:300]}
    return results


KINDS = {
    f.__name__: f
    for f in (
        throughput,
        ceiling_polling,
        calls,
        at_limits,
        latency,
        latency_realtime,
        spark_floor,
        steady,
        steady_rate,
        idle,
        scale,
        memory,
        sink,
        pipeline,
        gsr_avro,
    )
}


def main():
    spec = json.loads(sys.argv[1])
    spark, pid = session(spec.get("slots", 2), spec.get("driver_class_path"), spec.get("master"), spec.get("packages"))
    try:
        result = KINDS[spec["kind"]](spark, pid, spec, Path(spec["workdir"]))
    finally:
        spark.stop()
    print("RESULT " + json.dumps(result))


if __name__ == "__main__":
    main()
