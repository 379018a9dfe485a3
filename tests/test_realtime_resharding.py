# SPDX-License-Identifier: Apache-2.0
"""End to end, resharding during a real-time query, in both consumer modes: a split and a
merge while records arrive. A closed shard's task ends at the shard's end and its children
are read from the next batch on: every record once, each key's records in order. Reads go
through the fault proxy, which ends a closed shard's subscription as real Kinesis does
(kinesis-mock never does)."""

import json

import pytest
from realtime import deliveries, next_commits, realtime_reader, start_realtime, wait_for

from streaming import READ_MODES, KeyedProducer, mode_options


def open_shards(client, stream):
    return sorted(
        (
            s
            for s in client.list_shards(StreamName=stream)["Shards"]
            if "EndingSequenceNumber" not in s["SequenceNumberRange"]
        ),
        key=lambda s: int(s["HashKeyRange"]["StartingHashKey"]),
    )


@pytest.mark.parametrize("mode", READ_MODES)
def test_a_split_and_a_merge_during_a_real_time_query_lose_repeat_and_reorder_nothing(
    spark, kinesis, fault_proxy, tmp_path, mode
):
    spark.conf.set("spark.sql.streaming.realTimeMode.minBatchDuration", "1000")
    client = kinesis.client
    stream = kinesis.create_stream(shards=1)
    sink, checkpoint = tmp_path / "sink", tmp_path / "checkpoint"
    query = start_realtime(
        realtime_reader(spark, kinesis, stream, endpoint=fault_proxy.endpoint, **mode_options(mode)), sink, checkpoint
    )
    producer = KeyedProducer(kinesis, stream)
    try:
        producer.start()
        wait_for(lambda: len(deliveries(sink)) > 20, "the first records", query)
        parent = open_shards(client, stream)[0]
        low, high = int(parent["HashKeyRange"]["StartingHashKey"]), int(parent["HashKeyRange"]["EndingHashKey"])
        client.split_shard(StreamName=stream, ShardToSplit=parent["ShardId"], NewStartingHashKey=str((low + high) // 2))
        kinesis.wait_active(stream)
        children = open_shards(client, stream)
        wait_for(
            lambda: {r["shard"] for r in deliveries(sink)} >= {c["ShardId"] for c in children},
            "records of both children",
            query,
        )
        client.merge_shards(
            StreamName=stream, ShardToMerge=children[0]["ShardId"], AdjacentShardToMerge=children[1]["ShardId"]
        )
        kinesis.wait_active(stream)
        merged = open_shards(client, stream)[0]["ShardId"]
        wait_for(lambda: merged in {r["shard"] for r in deliveries(sink)}, "records of the merged shard", query)
        producer.stop()
        wait_for(lambda: len(deliveries(sink)) >= len(producer.produced), "every record", query)
        next_commits(checkpoint, query)  # a record read twice would be in the sink by now
    finally:
        producer.halt.set()
        query.stop()
        spark.conf.unset("spark.sql.streaming.realTimeMode.minBatchDuration")

    rows = deliveries(sink)
    assert sorted(r["data"] for r in rows) == sorted(d.decode() for _, d in producer.produced), (
        "each record exactly once"
    )
    assert len({r["shard"] for r in rows}) == 4, "parent, two children and the merged shard were read"
    by_key = {}
    for r in rows:
        by_key.setdefault(r["key"], []).append((json.loads(r["data"])["n"], r["batch"], r["sinkTime"]))
    for key, items in by_key.items():
        delivered = [(batch, at) for _, batch, at in sorted(items)]
        assert delivered == sorted(delivered), f"{key}: a record came before one put earlier"
    if mode == "efo":
        assert fault_proxy.injected[("SubscribeToShard", "shard_end")] >= 3
        assert fault_proxy.calls["GetRecords"] == 0
