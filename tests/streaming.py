"""Helpers the end-to-end tests share: records to put, and queries that read them back."""

import json
import uuid


def make_records(n, tag=None):
    """n (partition key, JSON bytes) pairs with distinct keys and payloads."""
    tag = tag or uuid.uuid4().hex[:6]
    return [(f"key-{tag}-{i}", json.dumps({"tag": tag, "i": i}).encode()) for i in range(n)]


def kinesis_reader(spark, kinesis, stream, **options):
    reader = (spark.readStream.format("kinesis")
              .option("streamName", stream)
              .option("endpoint", kinesis.endpoint)
              .option("region", kinesis.region)
              .option("initialPosition", "trim_horizon")
              # Keep triggers short: the local Kinesis is slow and tests read little.
              .option("maxFetchDuration", "2s")
              .option("minFetchPeriod", "200ms"))
    for key, value in options.items():
        reader = reader.option(key, value)
    return reader.load()


def run_available_now(df, sink_dir, checkpoint_dir, timeout=240):
    """Runs the query once over what is in the stream now, appending to a Parquet sink."""
    query = (df.writeStream.format("parquet")
             .option("path", str(sink_dir))
             .option("checkpointLocation", str(checkpoint_dir))
             .trigger(availableNow=True)
             .start())
    finished = query.awaitTermination(timeout)
    if not finished:
        query.stop()
        raise TimeoutError(f"query did not finish within {timeout}s")
    if query.exception():
        raise query.exception()
    return query
