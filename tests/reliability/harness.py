# SPDX-License-Identifier: Apache-2.0
"""One reliability run: keyed records produced at a steady rate while a streaming query reads
them (through the fault proxy) into a Parquet table, then the table compared with what was
produced. Used by test_reliability.py and, in its own JVM, by apps/read_into_table.py."""

import hashlib
import json
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from waiting import settle


class Producer:
    """Puts `total` records at about `rate` records/s from a background thread. Record n of a
    partition key carries {"key": key, "n": n}, n counting from 1 per key, so a reader can
    tell lost, repeated and reordered records apart. `produced` lists (key, n) once written."""

    def __init__(self, kinesis, stream, total, rate=150, keys=16, tag=None, aggregate=False, pad_every=0, pad_bytes=0):
        self.kinesis, self.stream, self.total, self.rate, self.keys = kinesis, stream, total, rate, keys
        # KPL aggregates (aws-kinesis-agg): True, one per shard and put; "mixed", of keys of any
        # shard under the first one's key, as the AWS aggregation libraries pack on purpose.
        self.aggregate = aggregate
        self.pad_every, self.pad_bytes = pad_every, pad_bytes  # every n-th record padded to about pad_bytes
        self.tag = tag or uuid.uuid4().hex[:6]
        self.produced = []
        self.error = None
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name=f"producer-{self.tag}", daemon=True)

    def start(self):
        if not self._thread.is_alive() and self._thread.ident is None:
            self._thread.start()
        return self

    def done(self):
        return not self._thread.is_alive()

    def stop(self):
        """Ends production after the put under way (a timed run that the slow local Kinesis left
        short of `total`); `produced` then holds exactly what was written."""
        self._stopping = True

    def join(self, timeout=300):
        self._thread.join(timeout)
        if self._thread.is_alive():
            raise TimeoutError(f"producer did not finish {self.total} records within {timeout}s")
        if self.error:
            raise self.error

    def _run(self):
        counters = {}
        chunk = max(1, self.rate // 4)  # four puts a second keep the rate steady
        started = time.monotonic()
        try:
            while len(self.produced) < self.total and not self._stopping:
                batch = []
                for _ in range(min(chunk, self.total - len(self.produced) - len(batch))):
                    key = f"{self.tag}-k{(len(self.produced) + len(batch)) % self.keys}"
                    counters[key] = counters.get(key, 0) + 1
                    body = {"key": key, "n": counters[key]}
                    if self.pad_every and (len(self.produced) + len(batch)) % self.pad_every == 0:
                        body["pad"] = "x" * self.pad_bytes
                    batch.append((key, json.dumps(body).encode()))
                if self.aggregate == "mixed":
                    batch_put = mixed_aggregates(batch)
                elif self.aggregate:
                    batch_put = kpl_aggregates(self.kinesis, self.stream, batch)
                else:
                    batch_put = batch
                self.kinesis.put_records(self.stream, batch_put)
                self.produced.extend((k, json.loads(d)["n"]) for k, d in batch)
                ahead = len(self.produced) / self.rate - (time.monotonic() - started)
                if ahead > 0:
                    time.sleep(ahead)
        except Exception as e:  # reported by join()
            self.error = e


def kpl_aggregates(kinesis, stream, records):
    """(partition key, bytes) records packed as a KPL producer packs them: one aggregate per
    target shard (by the MD5 of the key), put under the key of its first record."""
    from aws_kinesis_agg.aggregator import RecordAggregator

    ranges = [
        (int(s["HashKeyRange"]["StartingHashKey"]), int(s["HashKeyRange"]["EndingHashKey"]))
        for s in kinesis.client.list_shards(StreamName=stream)["Shards"]
        if "EndingSequenceNumber" not in s["SequenceNumberRange"]
    ]
    by_shard = {}
    for key, data in records:
        hash_key = int(hashlib.md5(key.encode()).hexdigest(), 16)
        shard = next(i for i, (lo, hi) in enumerate(ranges) if lo <= hash_key <= hi)
        by_shard.setdefault(shard, []).append((key, data))
    puts = []
    for group in by_shard.values():
        aggregator = RecordAggregator()
        for key, data in group:
            full = aggregator.add_user_record(key, data)  # an aggregate that had no room left for this record
            if full is not None:
                outer_key, _, body = full.get_contents()
                puts.append((outer_key, body))
        outer_key, _, data = aggregator.clear_and_get().get_contents()
        puts.append((outer_key, data))
    return puts


def mixed_aggregates(records, per_aggregate=8, max_bytes=900_000):
    """(partition key, bytes) records packed in order into aggregates of up to `per_aggregate`
    (and about `max_bytes`), whatever shard each key hashes to, each put under its first key."""
    from aws_kinesis_agg.aggregator import RecordAggregator

    puts, aggregator, count, size = [], RecordAggregator(), 0, 0
    for key, data in records:
        if count and (count == per_aggregate or size + len(data) > max_bytes):
            outer_key, _, body = aggregator.clear_and_get().get_contents()
            puts.append((outer_key, body))
            count, size = 0, 0
        aggregator.add_user_record(key, data)
        count, size = count + 1, size + len(data)
    if count:
        outer_key, _, body = aggregator.clear_and_get().get_contents()
        puts.append((outer_key, body))
    return puts


def reader_options(endpoint, region, stream, mode, consumer=None, **extra):
    """The source options of a run: polling, or EFO with a consumer of its own."""
    options = {
        "streamName": stream,
        "endpoint": endpoint,
        "region": region,
        "initialPosition": "trim_horizon",
        "maxFetchDuration": "1s",
        "minFetchPeriod": "200ms",
        "shardFetchInterval": "500ms",
    }
    if mode == "efo":
        options.update(
            consumerMode="efo",
            consumerName=consumer or f"rel-{uuid.uuid4().hex[:8]}",
            requireConsumerDeregistration="true",
        )
    options.update(extra)
    return options


def write_batch(out):
    """A foreachBatch function: batch N replaces out/batch=N, so a batch re-run after a failure
    or restart (which reads exactly the same records) leaves the table as one run would, and
    the batch column shows the order in which records were delivered."""

    def sink(batch, batch_id):
        (
            batch.selectExpr("CAST(data AS STRING) AS data", "partitionKey", "shardId", "sequenceNumber")
            .write.mode("overwrite")
            .parquet(f"{out}/batch={batch_id}")
        )

    return sink


def start_query(spark, options, out, checkpoint, trigger):
    """Starts the read: trigger "micro-batch" (every second) or "available-now"."""
    writer = (
        spark.readStream.format("kinesis")
        .options(**options)
        .load()
        .writeStream.foreachBatch(write_batch(out))
        .option("checkpointLocation", str(checkpoint))
    )
    if trigger == "available-now":
        writer = writer.trigger(availableNow=True)
    elif trigger == "micro-batch":
        writer = writer.trigger(processingTime="1 second")
    else:
        raise ValueError(f"trigger must be micro-batch or available-now, not {trigger!r}")
    return writer.start()


# Given, because a table of empty batches only has no file to infer it from.
TABLE_SCHEMA = "data string, partitionKey string, shardId string, sequenceNumber string, batch long"


def table(spark, out):
    if not Path(out).exists() or not any(Path(out).glob("batch=*")):
        return None
    return spark.read.schema(TABLE_SCHEMA).parquet(str(out))


def table_rows(spark, out):
    df = table(spark, out)
    return df.collect() if df is not None else []


def table_count(spark, out):
    df = table(spark, out)
    return df.count() if df is not None else 0


def fail_if_failed(query):
    if query.exception():
        raise query.exception()


@dataclass
class Comparison:
    produced: int
    read: int
    lost: int
    duplicated: int
    unexpected: int
    order_errors: list = field(default_factory=list)
    examples: dict = field(default_factory=dict)


def compare(produced, rows):
    """The table against what was produced: lost and duplicated (key, n) pairs, pairs nobody
    produced, and order breaks within a partition key: record n must not be delivered in an
    earlier batch than record n-1, and within one batch a key's records come from one shard in
    sequence-number order."""
    wanted = set(produced)
    read, by_key = [], {}
    for r in rows:
        body = json.loads(r.data)
        pair = (body["key"], body["n"])
        read.append(pair)
        by_key.setdefault(body["key"], []).append((body["n"], r.batch, r.shardId, int(r.sequenceNumber)))
    got = set(read)
    lost, unexpected = wanted - got, got - wanted
    duplicated = len(read) - len(got)
    order_errors = []
    for key, items in by_key.items():
        items = sorted(set(items))
        batches = [b for _, b, _, _ in items]
        if batches != sorted(batches):
            order_errors.append(f"{key}: delivered out of order across batches")
        for batch in set(batches):
            same = [(s, q) for _, b, s, q in items if b == batch]
            if len({s for s, _ in same}) > 1:
                order_errors.append(f"{key}: parent and child shard in batch {batch}")
            elif [q for _, q in same] != sorted(q for _, q in same):
                order_errors.append(f"{key}: out of sequence order in batch {batch}")
    examples = {"lost": sorted(lost)[:5], "unexpected": sorted(unexpected)[:5]}
    return Comparison(len(produced), len(read), len(lost), duplicated, len(unexpected), order_errors, examples)


def wait_for(condition, timeout, message, query=None):
    deadline = time.monotonic() + timeout
    while not condition():
        if query is not None:
            fail_if_failed(query)
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout}s waiting for {message}")
        time.sleep(1)


def read_while_producing(spark, producer, options, out, checkpoint, trigger, restart_at=None, during=None, timeout=420):
    """Runs the query while `producer` writes, until the table holds every produced record.
    The producer is started once the first query is, so the records arrive while it reads.

    micro-batch: one query; with `restart_at` (a share of the records) it is stopped once the
    table holds that share and started again from the same checkpoint, as a restarted driver
    would. available-now: runs follow each other on one checkpoint until nothing is left; with
    `restart_at`, the run under way at that point is stopped in the middle.
    `during(count)` is called about every second (a reshard, for instance). Once the table holds
    every record, the query processes all its source offers, so anything read twice is in it too."""
    deadline = time.monotonic() + timeout
    restarts = 0

    def tick(query=None):
        count = table_count(spark, out)
        if during:
            during(count)
        return count

    def all_in():
        # The count first: `during` must see the table grow while the producer still writes.
        count = tick()
        return producer.done() and count >= len(producer.produced)

    if trigger == "micro-batch":
        query = start_query(spark, options, out, checkpoint, trigger)
        producer.start()
        try:
            if restart_at:
                wait_for(
                    lambda: tick(query) >= restart_at * producer.total, timeout, "records before the restart", query
                )
                query.stop()
                restarts += 1
                query = start_query(spark, options, out, checkpoint, trigger)
            wait_for(all_in, deadline - time.monotonic(), "every produced record in the table", query)
            settle(query)
            fail_if_failed(query)
        finally:
            query.stop()
        return restarts

    while True:
        query = start_query(spark, options, out, checkpoint, trigger)
        producer.start()
        try:
            if restart_at and not restarts:
                wait_for(
                    lambda query=query: tick(query) >= restart_at * producer.total or not query.isActive,
                    deadline - time.monotonic(),
                    "records before the restart",
                    query,
                )
                if query.isActive:
                    query.stop()
                    restarts += 1
                    continue
            while query.isActive:
                query.awaitTermination(1)
                tick(query)
                if time.monotonic() > deadline:
                    raise TimeoutError("an available-now run did not finish")
            fail_if_failed(query)
        finally:
            query.stop()
        if all_in():
            return restarts
        if time.monotonic() > deadline:
            raise TimeoutError("available-now runs did not read every produced record")
        time.sleep(1)


def open_shards(client, stream):
    shards = client.list_shards(StreamName=stream)["Shards"]
    return sorted(
        (s for s in shards if "EndingSequenceNumber" not in s["SequenceNumberRange"]),
        key=lambda s: int(s["HashKeyRange"]["StartingHashKey"]),
    )


class Resharder:
    """A `during` callback: splits a shard once a quarter of the records are in the table, and
    merges two adjacent shards at half; `done` says what it did."""

    def __init__(self, kinesis, stream, total):
        self.kinesis, self.stream, self.total = kinesis, stream, total
        self.done: list = []

    def __call__(self, count):
        client, stream, done = self.kinesis.client, self.stream, self.done
        if not done and count >= self.total // 4:
            shard = open_shards(client, stream)[0]
            low, high = int(shard["HashKeyRange"]["StartingHashKey"]), int(shard["HashKeyRange"]["EndingHashKey"])
            client.split_shard(
                StreamName=stream, ShardToSplit=shard["ShardId"], NewStartingHashKey=str((low + high) // 2)
            )
            self.kinesis.wait_active(stream)
            done.append("split")
        elif done == ["split"] and count >= self.total // 2:
            a, b = open_shards(client, stream)[:2]
            client.merge_shards(StreamName=stream, ShardToMerge=a["ShardId"], AdjacentShardToMerge=b["ShardId"])
            self.kinesis.wait_active(stream)
            done.append("merge")
