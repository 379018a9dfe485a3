# SPDX-License-Identifier: Apache-2.0
"""Helpers of the real-time mode tests: a foreach sink that writes every row it is given to
files as it arrives (a real-time query's sink; Spark allows foreach in real-time mode), and
a query that reads a stream into it with trigger(realTime=...)."""

import json
import os
import sys
import time
import uuid
from pathlib import Path

from pyspark import cloudpickle

from waiting import wait_for  # noqa: F401  (the real-time tests import it from here)

# Python workers do not have tests/ on their path: ship FileSink's code with the query.
cloudpickle.register_pickle_by_value(sys.modules[__name__])

# Spark refuses real-time batches shorter than this (default 5 s); the tests use short ones.
MIN_BATCH_DURATION = "spark.sql.streaming.realTimeMode.minBatchDuration"


class FileSink:
    """A foreach writer: each task appends one JSON line per row to a file of its own, flushed
    at once, with the time the row reached the sink. Every delivery is kept, so a record
    delivered twice shows twice."""

    def __init__(self, directory):
        self.directory = str(directory)

    def open(self, partition_id, epoch_id):
        self.batch = epoch_id
        name = f"{partition_id}-{epoch_id}-{uuid.uuid4().hex[:8]}.jsonl"
        self.file = open(os.path.join(self.directory, name), "a")
        return True

    def process(self, row):
        self.file.write(
            json.dumps(
                {
                    "seq": row.sequenceNumber,
                    "shard": row.shardId,
                    "key": row.partitionKey,
                    "data": bytes(row.data).decode(),
                    "arrival": row.approximateArrivalTimestamp.timestamp(),
                    "batch": self.batch,
                    "sinkTime": time.time(),
                }
            )
            + "\n"
        )
        self.file.flush()

    def close(self, error):
        self.file.close()


def deliveries(directory):
    """Every row the sink got, in no particular order: dicts with seq, shard, key, data, ..."""
    rows = []
    for path in Path(directory).glob("*.jsonl"):
        for line in path.read_text().splitlines():
            if line.endswith("}"):  # a line being written has no end yet
                rows.append(json.loads(line))
    return rows


def start_realtime(df, sink_dir, checkpoint, duration="2 seconds"):
    Path(sink_dir).mkdir(parents=True, exist_ok=True)
    return (
        df.writeStream.foreach(FileSink(sink_dir))
        .outputMode("update")
        .option("checkpointLocation", str(checkpoint))
        .trigger(realTime=duration)
        .start()
    )


def committed_batches(checkpoint):
    """The ids of the batches the checkpoint committed, in order."""
    commits = Path(checkpoint) / "commits"
    return sorted(int(p.name) for p in commits.iterdir() if p.name.isdigit()) if commits.is_dir() else []


def next_commits(checkpoint, query, count=2, timeout=90):
    """Waits until `count` more batches are committed: the real-time batch running now has
    ended, and one more after it, so a record read twice would be in the sink by now."""
    start = len(committed_batches(checkpoint))
    more = f"{count} more committed batches"
    wait_for(lambda: len(committed_batches(checkpoint)) >= start + count, more, query, timeout)


def committed_offsets(checkpoint):
    """The source offset of the last batch the checkpoint committed, as JSON."""
    commits = committed_batches(checkpoint)
    last = (Path(checkpoint) / "offsets" / str(commits[-1])).read_text().splitlines()
    return json.loads(last[-1])


def realtime_reader(spark, kinesis, stream, endpoint=None, **options):
    """A read of `stream` from its trim horizon with only the options real-time mode takes."""
    reader = (
        spark.readStream.format("kinesis")
        .option("streamName", stream)
        .option("endpoint", endpoint or kinesis.endpoint)
        .option("region", kinesis.region)
        .option("initialPosition", "trim_horizon")
        .option("minFetchPeriod", "200ms")
    )
    return reader.options(**options).load()
