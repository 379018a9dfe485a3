# SPDX-License-Identifier: Apache-2.0
"""End to end, resharding under enhanced fan-out: an EFO query reads through the fault proxy,
which ends a closed shard's subscription as real Kinesis does (kinesis-mock never does), while
the stream is split, merged and rescaled under a steady load. Every record once, per-key order,
parents before children, as with polling (test_polling's resharding test)."""

import uuid

from streaming import KeyedProducer as Producer
from streaming import assert_key_order, kinesis_reader
from waiting import settle, wait_for


def test_efo_resharding_under_load_loses_repeats_and_reorders_nothing(spark, kinesis, fault_proxy, tmp_path):
    client = kinesis.client
    stream = kinesis.create_stream(shards=2)
    out = tmp_path / "out"

    def sink(batch, batch_id):
        batch.selectExpr("CAST(data AS STRING) AS data", "shardId", "sequenceNumber").write.mode("append").parquet(
            str(out / f"batch={batch_id}")
        )

    def sink_rows():
        # Only committed batches: a batch being written has its files under _temporary.
        done = [str(d) for d in out.glob("batch=*") if (d / "_SUCCESS").exists()]
        return spark.read.option("basePath", str(out)).parquet(*done).count() if done else 0

    def open_shards():
        shards = client.list_shards(StreamName=stream)["Shards"]
        return sorted(
            (s for s in shards if "EndingSequenceNumber" not in s["SequenceNumberRange"]),
            key=lambda s: int(s["HashKeyRange"]["StartingHashKey"]),
        )

    def shards_read():
        done = [str(d) for d in out.glob("batch=*") if (d / "_SUCCESS").exists()]
        if not done:
            return set()
        return {r.shardId for r in spark.read.option("basePath", str(out)).parquet(*done).select("shardId").collect()}

    def read_from_each(shards, what):
        """Waits until the query has read records of each of these (new) shards, so each
        reshard comes after the previous one's children were read."""
        ids = {s["ShardId"] for s in shards}
        wait_for(lambda: ids <= shards_read(), what, query, timeout=240)

    def live_subscriptions():
        metrics = [p["sources"][0].get("metrics") or {} for p in query.recentProgress]
        return metrics[-1].get("liveSubscriptions") if metrics else None

    spark.conf.set("spark.sql.streaming.noDataProgressEventInterval", "1000")
    query = (
        kinesis_reader(
            spark,
            kinesis,
            stream,
            endpoint=fault_proxy.endpoint,
            consumerMode="efo",
            consumerName=f"e2e-{uuid.uuid4().hex[:8]}",
            requireConsumerDeregistration="true",
            maxFetchDuration="500ms",
            shardFetchInterval="200ms",
        )
        .writeStream.foreachBatch(sink)
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .trigger(processingTime="500 milliseconds")
        .start()
    )
    producer = Producer(kinesis, stream, keys=48)  # enough keys that every shard gets some
    try:
        producer.start()
        wait_for(lambda: sink_rows() > 0, "the first records in the sink", query)
        first = open_shards()[0]
        low, high = int(first["HashKeyRange"]["StartingHashKey"]), int(first["HashKeyRange"]["EndingHashKey"])
        client.split_shard(StreamName=stream, ShardToSplit=first["ShardId"], NewStartingHashKey=str((low + high) // 2))
        kinesis.wait_active(stream)
        shards = open_shards()
        read_from_each(shards, "records of both children of the split")
        client.merge_shards(
            StreamName=stream, ShardToMerge=shards[0]["ShardId"], AdjacentShardToMerge=shards[1]["ShardId"]
        )
        kinesis.wait_active(stream)
        read_from_each(open_shards(), "records of the merged shard")
        client.update_shard_count(StreamName=stream, TargetShardCount=4, ScalingType="UNIFORM_SCALING")
        kinesis.wait_active(stream)
        read_from_each(open_shards(), "records of the four shards after rescaling")
        producer.stop()
        wait_for(lambda: sink_rows() >= len(producer.produced), "every record in the sink", query, timeout=240)
        settle(query)  # a record read twice would be in the sink by now
        # Each closed shard's subscription ended: one live subscription per open shard.
        wait_for(
            lambda: live_subscriptions() == str(len(open_shards())), "a subscription per open shard", query, timeout=60
        )
    finally:
        producer.halt.set()
        query.stop()
        spark.conf.unset("spark.sql.streaming.noDataProgressEventInterval")

    rows = spark.read.parquet(str(out)).collect()
    assert len(rows) == len(producer.produced), "records lost or repeated"
    assert sorted(r.data for r in rows) == sorted(d.decode() for _, d in producer.produced)
    assert len({r.shardId for r in rows}) > 2, "children of the reshards were read"
    assert_key_order(rows)
    # The reshards were seen through the subscriptions' final events, not by polling.
    closed = [
        s for s in client.list_shards(StreamName=stream)["Shards"] if "EndingSequenceNumber" in s["SequenceNumberRange"]
    ]
    assert fault_proxy.injected[("SubscribeToShard", "shard_end")] >= len(closed)
    assert fault_proxy.calls["GetRecords"] == 0
