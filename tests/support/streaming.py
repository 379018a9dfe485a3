# SPDX-License-Identifier: Apache-2.0
"""Helpers the end-to-end tests share: records to put, and queries that read them back."""

import json
import threading
import time
import uuid


def make_records(n, tag=None):
    """n (partition key, JSON bytes) pairs with distinct keys and payloads."""
    tag = tag or uuid.uuid4().hex[:6]
    return [(f"key-{tag}-{i}", json.dumps({"tag": tag, "i": i}).encode()) for i in range(n)]


# The two ways of reading, for tests that check a guarantee of both.
READ_MODES = ("polling", "efo")


def mode_options(mode):
    """The source options of a read mode: none for polling; EFO with a consumer of its own.
    Call once per test: a restarted query must reuse the consumer name."""
    if mode == "polling":
        return {}
    assert mode == "efo", mode
    return {"consumerMode": "efo", "consumerName": f"e2e-{uuid.uuid4().hex[:8]}"}


def kinesis_reader(spark, kinesis, stream, **options):
    reader = (
        spark.readStream.format("kinesis")
        .option("streamName", stream)
        .option("endpoint", kinesis.endpoint)
        .option("region", kinesis.region)
        .option("initialPosition", "trim_horizon")
        # Keep triggers short: the local Kinesis is slow and tests read little.
        .option("maxFetchDuration", "2s")
        .option("minFetchPeriod", "200ms")
    )
    for key, value in options.items():
        reader = reader.option(key, value)
    return reader.load()


def run_available_now(df, sink_dir, checkpoint_dir, timeout=240):
    """Runs the query once over what is in the stream now, appending to a Parquet sink."""
    query = (
        df.writeStream.format("parquet")
        .option("path", str(sink_dir))
        .option("checkpointLocation", str(checkpoint_dir))
        .trigger(availableNow=True)
        .start()
    )
    finished = query.awaitTermination(timeout)
    if not finished:
        query.stop()
        raise TimeoutError(f"query did not finish within {timeout}s")
    if query.exception():
        raise query.exception()
    return query


def read_shard(client, stream, shard_id, timeout=120):
    """Every record of one shard from its trim horizon to the tip, read with boto3 (raw records).
    Gives up after `timeout` seconds, so a shard that never reports the tip cannot hang a test."""
    deadline = time.monotonic() + timeout
    it = client.get_shard_iterator(StreamName=stream, ShardId=shard_id, ShardIteratorType="TRIM_HORIZON")[
        "ShardIterator"
    ]
    records = []
    while it:
        assert time.monotonic() < deadline, f"{stream}/{shard_id}: no tip after {timeout}s ({len(records)} records)"
        resp = client.get_records(ShardIterator=it, Limit=10000)
        records += resp["Records"]
        # An open shard always returns a next iterator; stop at the tip.
        if not resp["Records"] and resp.get("MillisBehindLatest", 0) == 0:
            break
        it = resp.get("NextShardIterator")
    return records


def read_all(kinesis, stream):
    """Every record of every shard of a stream, read with boto3: [(shardId, partitionKey, bytes)]."""
    client = kinesis.client
    return [
        (shard["ShardId"], r["PartitionKey"], r["Data"])
        for shard in client.list_shards(StreamName=stream)["Shards"]
        for r in read_shard(client, stream, shard["ShardId"])
    ]


def read_deaggregated(kinesis, stream):
    """Every user record of a stream as aws-kinesis-agg (the format's reference de-aggregator)
    splits what boto3 GetRecords returns, shard by shard in order:
    [(shardId, partitionKey, bytes, aggregated)]. It checks no hash-key range."""
    client = kinesis.client
    return [
        (shard["ShardId"], *user)
        for shard in client.list_shards(StreamName=stream)["Shards"]
        for user in user_records(read_shard(client, stream, shard["ShardId"]))
    ]


def user_records(records):
    """The user records of boto3 GetRecords records, KPL aggregates split by aws-kinesis-agg:
    [(partitionKey, bytes, aggregated)]."""
    import base64

    from aws_kinesis_agg.deaggregator import iter_deaggregate_records

    out = []
    for user in iter_deaggregate_records(records, data_format="Boto3"):
        record = user["kinesis"]
        aggregated = bool(record.get("aggregated"))
        data = base64.b64decode(record["data"]) if aggregated else record["data"]
        out.append((record["partitionKey"], data, aggregated))
    return out


def assert_first_copies_in_order(pairs):
    """[(key, n)] as read, shard by shard in order: the first copy of each key's records comes
    in increasing n. At-least-once writes may repeat a record later (a retried call whose answer
    was lost, a task run again), so only first copies are compared."""
    seen, firsts = set(), {}
    for key, n in pairs:
        if (key, n) not in seen:
            seen.add((key, n))
            firsts.setdefault(key, []).append(n)
    wrong = {key: ns for key, ns in firsts.items() if ns != sorted(ns)}
    assert not wrong, f"{len(wrong)} keys out of order, e.g. {next(iter(wrong.items()))}"


def kinesis_writer(df, kinesis, stream=None, **options):
    """df.write.format("kinesis").mode("append") at the test Kinesis (streamName unless None)."""
    writer = (
        df.write.format("kinesis")
        .mode("append")
        .option("endpoint", options.pop("endpoint", kinesis.endpoint))
        .option("region", kinesis.region)
    )
    if stream is not None:
        writer = writer.option("streamName", stream)
    return writer.options(**options)


def sink_metrics(query):
    """The sink metrics of every progress of a query, added up (recordsWritten, putRetries, ...)."""
    total = {}
    for progress in query.recentProgress:
        for name, value in (progress.get("sink", {}).get("metrics") or {}).items():
            total[name] = total.get(name, 0) + int(value)
    return total


def assert_key_order(rows):
    """Kinesis order within each partition key, for rows with `data` (JSON with `key` and `n`,
    the record's number within its key), `batch`, `shardId` and `sequenceNumber`: record n is
    never in an earlier batch than record n-1 (so a parent shard's records come before its
    children's), and within one batch all of a key's records come from one shard, in sequence
    order."""
    by_key = {}
    for r in rows:
        body = json.loads(r.data)
        by_key.setdefault(body["key"], []).append((body["n"], r.batch, r.shardId, int(r.sequenceNumber)))
    for key, items in by_key.items():
        items.sort()
        assert [b for _, b, _, _ in items] == sorted(b for _, b, _, _ in items), f"{key} out of order across batches"
        for batch in {b for _, b, _, _ in items}:
            same = [(s, q) for _, b, s, q in items if b == batch]
            assert len({s for s, _ in same}) == 1, f"{key}: parent and child shard in one batch"
            assert [q for _, q in same] == sorted(q for _, q in same), f"{key} out of order in batch {batch}"


class KeyedProducer(threading.Thread):
    """Puts small batches of records, each naming its partition key and its number within that
    key, until stopped; an error is kept for the test to raise."""

    def __init__(self, kinesis, stream, keys=12, per_put=10, pause=0.3):
        super().__init__(daemon=True)
        self.kinesis, self.stream, self.keys, self.per_put, self.pause = kinesis, stream, keys, per_put, pause
        self.tag = uuid.uuid4().hex[:6]
        self.produced, self.error = [], None
        self.counters = {}
        self.halt = threading.Event()

    def run(self):
        try:
            while not self.halt.is_set():
                batch = []
                for _ in range(self.per_put):
                    key = f"{self.tag}-k{len(self.produced) % self.keys}"
                    self.counters[key] = self.counters.get(key, 0) + 1
                    record = (key, json.dumps({"key": key, "n": self.counters[key]}).encode())
                    batch.append(record)
                    self.produced.append(record)
                self.kinesis.put_records(self.stream, batch)
                time.sleep(self.pause)
        except Exception as e:  # surfaced by stop()
            self.error = e

    def stop(self):
        self.halt.set()
        self.join(60)
        if self.error:
            raise self.error


def registered_elsewhere(kinesis, stream, timeout=60):
    """A consumer registered with boto3, as another team's tooling would; its ARN once ACTIVE."""
    stream_arn = kinesis.client.describe_stream_summary(StreamName=stream)["StreamDescriptionSummary"]["StreamARN"]
    name = f"elsewhere-{uuid.uuid4().hex[:8]}"
    arn = kinesis.client.register_stream_consumer(StreamARN=stream_arn, ConsumerName=name)["Consumer"]["ConsumerARN"]
    deadline = time.monotonic() + timeout
    while kinesis.client.describe_stream_consumer(ConsumerARN=arn)["ConsumerDescription"]["ConsumerStatus"] != "ACTIVE":
        assert time.monotonic() < deadline, f"consumer {arn} not ACTIVE within {timeout}s"
        time.sleep(0.3)
    return arn
