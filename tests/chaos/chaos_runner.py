# SPDX-License-Identifier: Apache-2.0
"""One drawn run, end to end: a producer puts keyed records into the source stream while a
streaming query reads them through the fault proxy (programmed by the nemesis) into its
sink; the runner restarts and reshards as drawn, then hands what is left to the checker."""

import json
import time
from pathlib import Path

import chaos_checker as check
from chaos_cluster import ClusterQuery
from chaos_generator import MIB
from chaos_nemesis import CATALOG, consumer_name
from expiring_roles import SESSION_SECONDS, SESSION_SECONDS_PROPERTY
from harness import Producer, Resharder, reader_options, start_query, table_count, table_rows
from realtime import MIN_BATCH_DURATION

from pyspark_kinesis import KinesisSinkOptions, foreach_kinesis
from streaming import read_deaggregated

TIMEOUT = 300  # seconds a run may take to bring every record to its sink
SETTLE = 3  # seconds after the last record, so that anything read twice would have arrived
# The documented errors of records lost to retention with failOnDataLoss (docs/troubleshooting.md):
# found where a reader starts, or where a planned range's records are gone.
LOSS_ERRORS = ("KINESIS_DATA_LOSS", "KINESIS_RECORDS_UNAVAILABLE")
# Spark's error when a real-time query stopped while it wrote its first batch's end starts again.
FIRST_BATCH_UNFINISHED = "STATE_STORE_CHECKPOINT_LOCATION_NOT_EMPTY"
# Threads a query starts (the connector's, and the SDK's for its clients); kinesis-call-* is
# the JVM's shared pool of blocking calls, whose idle threads end on their own.
OWNED = ("kinesis-", "aws-java-sdk-NettyEventLoop", "sdk-async-response")
SHARED = ("kinesis-call-",)


def replay_command(seed):
    return f"make test-chaos CHAOS_SEEDS={seed}"


class Sink:
    """Where a run's query writes, how to start the query and how far it got."""

    def __init__(self, run, spark, kinesis, proxy, tmp):
        self.run, self.spark, self.kinesis, self.proxy = run, spark, kinesis, proxy
        self.out, self.checkpoint, self.tmp, self.apps = tmp / "out", tmp / "checkpoint", tmp, 0
        self.java_properties = {}  # for a query in a JVM of its own (chaos_cluster)
        self.target = kinesis.create_stream(shards=run.target_shards) if run.sink == "kinesis" else None
        if self.target and run.pad_bytes > MIB:
            allow_large_records(kinesis, self.target)

    def start(self, options):
        run = self.run
        if run.cluster:
            self.apps += 1
            log = self.tmp / f"app-{self.apps}.log"
            return ClusterQuery(options, self.out, self.checkpoint, log, self.java_properties)
        if run.sink == "table":
            return start_query(self.spark, options, self.out, self.checkpoint, run.trigger)
        df = self.spark.readStream.format("kinesis").options(**options).load().select("partitionKey", "data")
        assert self.target is not None
        if run.trigger == "real-time":
            out = KinesisSinkOptions().stream_name(self.target).region(self.kinesis.region)
            out = out.endpoint(self.proxy.endpoint).record_ids(run.record_ids)
            writer = foreach_kinesis(df, out).outputMode("update").trigger(realTime="2 seconds")  # type: ignore[call-overload]
        else:
            writer = (
                df.writeStream.format("kinesis")
                .option("streamName", self.target)
                .option("endpoint", self.proxy.endpoint)
                .option("region", self.kinesis.region)
                .option("recordIds", str(run.record_ids).lower())
            )
            writer = (
                writer.trigger(availableNow=True)
                if run.trigger == "available-now"
                else writer.trigger(processingTime="1 second")
            )
        return writer.option("checkpointLocation", str(self.checkpoint)).start()

    def stored(self):
        """How many distinct produced records reached the sink."""
        if self.run.sink == "table":
            return table_count(self.spark, self.out)
        return len(self.stored_records())

    def stored_records(self):
        """The distinct (key, n) records in the sink."""
        if self.run.sink == "table":
            return {_pair(r.data) for r in table_rows(self.spark, self.out)}
        return {_pair(data) for _, _, data, _ in read_deaggregated(self.kinesis, self.target)}

    def all_in(self, produced, may_lose):
        """Whether every produced record but those that may be lost reached the sink."""
        if not may_lose:
            return self.stored() >= len(produced)
        return not (set(produced) - may_lose) - self.stored_records()

    def check(self, produced, may_lose):
        # Aggregates of keys of any shard put a key's records on several shards: no order per key then.
        ordered = self.run.payload != "mixed"
        if self.run.sink == "table":
            return check.source_reads_each_record_once(produced, table_rows(self.spark, self.out), ordered, may_lose)
        rows = (
            self.spark.read.format("kinesis")
            .option("streamName", self.target)
            .option("endpoint", self.kinesis.endpoint)
            .option("region", self.kinesis.region)
            .option("includeRecordIds", "true")
            .load()
            .select("partitionKey", "data", "recordId")
            .collect()
        )
        target_rows = [(r.partitionKey, bytes(r.data), r.recordId) for r in rows]
        return check.sink_stores_each_row(
            produced, target_rows, self.run.record_ids, ordered, may_lose, real_time=self.run.trigger == "real-time"
        )


def _pair(data):
    body = json.loads(data)
    return body["key"], body["n"]


def allow_large_records(kinesis, stream):
    """Raises the stream's record size limit from 1 MiB to the 10 MiB Kinesis allows."""
    arn = kinesis.client.describe_stream_summary(StreamName=stream)["StreamDescriptionSummary"]["StreamARN"]
    kinesis.client.update_max_record_size(StreamARN=arn, MaxRecordSizeInKiB=10240)
    kinesis.wait_active(stream)


def source_options(run, kinesis, proxy, source):
    options = reader_options(proxy.endpoint, kinesis.region, source, run.mode, consumer=consumer_name(run))
    if not run.fail_on_data_loss:
        options["failOnDataLoss"] = "false"
    if run.mode == "efo":
        options["consumerRefreshInterval"] = "1s"  # a consumer deleted outside the query is found again soon
    if run.trigger == "real-time":
        options.pop("maxFetchDuration")  # real-time mode prefetches nothing
    else:
        options["shardsPerTask"] = str(run.shards_per_task)
        if run.fetch_buffer:
            options["fetchBufferSize"] = run.fetch_buffer
    return options


def jvm_threads(spark):
    threads = spark.sparkContext._jvm.java.lang.Thread.getAllStackTraces().keySet().toArray()
    return {t.getName() for t in threads}


def owned(names):
    return {n for n in names if n.startswith(OWNED) and not n.startswith(SHARED)}


def first_shard(kinesis, stream):
    """The shard the trim fault trims (chaos_nemesis.trim_a_shard)."""
    return kinesis.client.list_shards(StreamName=stream)["Shards"][0]["ShardId"]


def starts_naming_no_record(checkpoint):
    """The shards whose position the query restarts from names no record (TRIM_HORIZON,
    AT_TIMESTAMP), read from its checkpoint: the start of the batch in the offset log that was
    not committed, or else the last batch's end, or else the initial offset. Retention deleting
    records there is the one loss the query cannot see (docs/reading.md, "Data loss")."""
    offsets, commits = Path(checkpoint) / "offsets", Path(checkpoint) / "commits"
    logged = sorted(int(p.name) for p in offsets.glob("[0-9]*")) if offsets.exists() else []
    committed = {int(p.name) for p in commits.glob("[0-9]*")} if commits.exists() else set()
    start_batch = logged[-1] - 1 if logged and logged[-1] not in committed else (logged[-1] if logged else -1)
    if start_batch >= 0:
        offset = json.loads((offsets / str(start_batch)).read_text().splitlines()[2])
    else:
        initial = Path(checkpoint) / "sources" / "0" / "kinesis-initial-offset.json"
        if not initial.exists():
            return set()
        offset = json.loads(initial.read_text())
    return {
        shard
        for shards in offset["shards"].values()
        for shard, position in shards.items()
        if position["type"] in ("trim_horizon", "at_timestamp")
    }


def clear_unfinished_first_batch(checkpoint):
    """What docs/troubleshooting.md tells a user to delete when a real-time query stopped while
    Spark wrote its first batch's end will not start again (STATE_STORE_CHECKPOINT_LOCATION_NOT_EMPTY):
    in `offsets/` and `commits/`, when they hold no batch file, the unfinished temporary and
    `.crc` files left there. Returns the paths removed."""
    removed = []
    for log in (Path(checkpoint) / "offsets", Path(checkpoint) / "commits"):
        if log.exists() and not any(p.name.isdigit() for p in log.iterdir()):
            for leftover in sorted(log.iterdir()):
                leftover.unlink()
                removed.append(f"{log.name}/{leftover.name}")
    return removed


def last_offsets(query):
    """The end offsets of the query's last batch (a query in a JVM of its own reports none)."""
    progress = None if isinstance(query, ClusterQuery) else query.lastProgress
    return [source["endOffset"] for source in progress["sources"]] if progress else "no batch ended"


def metric_peak(query, metric):
    """The highest value of a source metric (prefetchedBytes, dataLossEvents) in the query's progress."""
    if isinstance(query, ClusterQuery):
        reported = query.source_metrics
    else:
        reported = [source.metrics or {} for progress in query.recentProgress for source in progress.sources]
    return max((int(metrics.get(metric, 0)) for metrics in reported), default=0)


def peaks(query, before):
    return {m: max(before.get(m, 0), metric_peak(query, m)) for m in ("prefetchedBytes", "dataLossEvents")}


def execute(run, spark, kinesis, proxy, tmp, moto=None):
    """Runs `run`; the broken promises, as sentences (empty when it kept every one). `moto`
    (its STS and IAM) for the faults that sign as another identity."""
    began = time.monotonic()
    before, held_before = owned(jvm_threads(spark)), live_resources(spark)
    source = kinesis.create_stream(shards=run.shards)
    if run.pad_bytes > MIB:
        allow_large_records(kinesis, source)
    for name in run.faults:
        CATALOG[name].program(proxy)
    aggregate = {"plain": False, "kpl": True, "mixed": "mixed"}[run.payload]
    producer = Producer(
        kinesis,
        source,
        run.records,
        rate=run.rate,
        keys=8,
        aggregate=aggregate,
        pad_every=run.pad_every,
        pad_bytes=run.pad_bytes,
    )
    sink = Sink(run, spark, kinesis, proxy, tmp)
    options = source_options(run, kinesis, proxy, source)
    for signs_as in filter(None, (CATALOG[name].signs_as for name in run.faults)):
        options.update(signs_as(moto, proxy))
        spark.sparkContext._jvm.java.lang.System.setProperty(SESSION_SECONDS_PROPERTY, str(SESSION_SECONDS))
        sink.java_properties[SESSION_SECONDS_PROPERTY] = SESSION_SECONDS
    reshard = Resharder(kinesis, source, run.records) if run.reshard else None
    pending = [name for name in run.faults if CATALOG[name].at is not None]
    if run.trigger == "real-time":
        spark.conf.set(MIN_BATCH_DURATION, "1000")
    broken, peak, restarted = [], {}, False
    cleared = False  # whether the documented way out of an unfinished first batch was taken
    may_lose = frozenset()  # the records a fault made unreadable before the query read them
    unseen = False  # whether the query cannot see that loss (docs/reading.md, "Data loss")
    query = sink.start(options)
    producer.start()
    deadline = time.monotonic() + TIMEOUT
    try:
        while True:
            if query.exception():
                if (
                    run.trigger == "real-time"
                    and restarted
                    and not cleared
                    and FIRST_BATCH_UNFINISHED in str(query.exception())
                ):
                    removed = clear_unfinished_first_batch(sink.checkpoint)
                    print(f"{time.monotonic() - began:.1f}s: the first batch's end was unfinished; removed {removed}")
                    query, cleared = sink.start(options), True
                    continue
                if may_lose and run.fail_on_data_loss and any(e in str(query.exception()) for e in LOSS_ERRORS):
                    may_lose = frozenset(producer.produced)  # the documented end: what it read, at most once
                else:
                    broken.append(f"the query failed: {str(query.exception())[:2000]}")
                break
            stored = sink.stored()
            if reshard:
                reshard(stored)
            for name in [n for n in pending if stored >= CATALOG[n].at * run.records]:
                if CATALOG[name].act(kinesis, source, run, query):
                    pending.remove(name)
                    print(f"{time.monotonic() - began:.1f}s: {name}, {stored} records in the sink")
            if (
                producer.done()
                and stored >= len(producer.produced) - len(may_lose)
                and sink.all_in(producer.produced, may_lose)
            ):
                time.sleep(SETTLE)
                break
            if run.restart_at and not restarted and stored >= run.restart_at * run.records and query.isActive:
                peak = peaks(query, peak)
                query.stop()
                for at_restart in filter(None, (CATALOG[name].at_restart for name in run.faults)):
                    may_lose |= at_restart(kinesis, proxy, source)
                    print(f"at the restart: {len(may_lose)} records may be lost")
                unseen = bool(may_lose) and first_shard(kinesis, source) in starts_naming_no_record(sink.checkpoint)
                query, restarted = sink.start(options), True
            elif not query.isActive:  # an available-now run ended: the next one reads what came since
                peak = peaks(query, peak)
                query = sink.start(options)
            if time.monotonic() > deadline:
                broken.append(
                    f"{stored} of {len(producer.produced)} records reached the sink within {TIMEOUT}s; "
                    f"where the query stood: {last_offsets(query)}"
                )
                break
            time.sleep(1)
    finally:
        peak = peaks(query, peak)
        query.stop()
        producer.stop()
        producer.join()
        proxy.clear()
        proxy.limits(False)
        if run.trigger == "real-time":
            spark.conf.unset(MIN_BATCH_DURATION)
        spark.sparkContext._jvm.java.lang.System.clearProperty(SESSION_SECONDS_PROPERTY)
    signers = len({key for _, key in proxy.signed_by})
    print(
        f"{time.monotonic() - began:.1f}s: every record in the sink; faults injected: {dict(proxy.injected)}; "
        f"calls signed by {signers} access keys"
    )
    if not broken:
        # With failOnDataLoss, records lost are a failure of the query (LOSS_ERRORS) or none.
        # Or none the query can see: the trimmed shard's restart position named no record.
        allowed, counted = check.losses_allowed(may_lose, producer.produced, run.fail_on_data_loss, seen=not unseen)
        broken += sink.check(producer.produced, allowed)
        if counted:
            broken += check.loss_is_counted(allowed - sink.stored_records(), peak.get("dataLossEvents", 0))
    broken += check.memory_stays_bounded(peak.get("prefetchedBytes", 0), run)
    print(f"{time.monotonic() - began:.1f}s: checked what the sink holds")
    # Readers and clients close asynchronously after stop; limiter turns last 5 s after a call.
    settle_by = time.monotonic() + 30
    while True:
        leaked = owned(jvm_threads(spark)) - before
        held = {k: n - held_before.get(k, 0) for k, n in live_resources(spark).items() if n > held_before.get(k, 0)}
        if (not leaked and not held) or time.monotonic() > settle_by:
            break
        time.sleep(1)
    broken += check.nothing_outlives_the_query(leaked, held)
    print(f"{time.monotonic() - began:.1f}s: checked what outlives the query")
    return broken


def live_resources(spark):
    """What the connector holds in this JVM (clients, providers, readers, subscriptions, limiter
    turns), as it counts them itself; only those it holds any of. A run is judged by what it
    adds: tests run before it in the same session may hold some (test_nothing_outlives_its_query
    checks a query leaves nothing at all)."""
    counts = spark.sparkContext._jvm.io.github.sparkkinesis.prefetch.LiveResources.countsJava()
    return {key: counts.get(key) for key in counts.keySet() if counts.get(key)}
