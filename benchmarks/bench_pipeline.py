# SPDX-License-Identifier: Apache-2.0
"""The pipeline rows of `make bench` (bench.py's pipeline-realtime and pipeline-micro-batch),
run in bench_spark.py's Spark session: Kinesis -> query -> Kinesis, read with the spec's options
(EFO), written with the connector's foreach writer (pyspark_kinesis.foreach_kinesis), in
real-time mode or in micro-batches. Latency runs from the put into the first stream (the time the
benchmark Kinesis writes first in each payload it produces) to the record's arrival in the second
(its ApproximateArrivalTimestamp there), for the records put during the window; cores are the
Spark JVM's over the window."""

import time
from datetime import datetime, timezone


def arrivals(endpoint, stream, since):
    """{partition key: (put time, arrival time)} of the records that arrived in `stream` from
    `since` (epoch seconds) on, read with boto3; a key stored twice keeps its first arrival."""
    import boto3

    client = boto3.client("kinesis", endpoint_url=endpoint, region_name="us-east-1")
    found = {}
    for shard in client.list_shards(StreamName=stream)["Shards"]:
        it = client.get_shard_iterator(
            StreamName=stream,
            ShardId=shard["ShardId"],
            ShardIteratorType="AT_TIMESTAMP",
            Timestamp=datetime.fromtimestamp(since, timezone.utc),
        )["ShardIterator"]
        while it:
            response = client.get_records(ShardIterator=it, Limit=10000)
            for r in response["Records"]:
                put, arrived = float(r["Data"].split()[0]), r["ApproximateArrivalTimestamp"].timestamp()
                if r["PartitionKey"] not in found or arrived < found[r["PartitionKey"]][1]:
                    found[r["PartitionKey"]] = (put, arrived)
            if not response["Records"] and response.get("MillisBehindLatest", 0) == 0:
                break
            it = response.get("NextShardIterator")
    return found


def start(spark, spec, workdir):
    """The query: the spec's stream read from its tip, copied into spec["out"]."""
    from bench_spark import reader
    from realtime_latency import MIN_BATCH_DURATION

    from pyspark_kinesis import KinesisSinkOptions, foreach_kinesis

    out = KinesisSinkOptions().stream_name(spec["out"]).endpoint(spec["endpoint"]).region("us-east-1")
    writer = foreach_kinesis(reader(spark, spec, initialPosition="latest").select("partitionKey", "data"), out).option(
        "checkpointLocation", str(workdir / "checkpoint")
    )
    if spec["trigger"] == "realtime":  # one batch longer than warm-up and window: no boundary inside
        spark.conf.set(MIN_BATCH_DURATION, str(spec["batch_duration_s"] * 1000))
        writer = writer.outputMode("update").trigger(  # type: ignore[call-overload]  # annotations lack realTime
            realTime=f"{spec['batch_duration_s']} seconds"
        )
    return writer.start()


def pipeline(spark, pid, spec, workdir):
    from bench_spark import cpu_window, latency_figures

    endpoint, out = spec["endpoint"], spec["out"]
    began = time.time()
    query = start(spark, spec, workdir)
    try:
        # The warm-up counts from the first copy: a fresh JVM's first batch is not the steady state.
        deadline = began + spec.get("first_batch_s", 180)
        while not arrivals(endpoint, out, began) and time.time() < deadline and not query.exception():
            time.sleep(1)
        time.sleep(spec["warmup_s"])
        t0, t1, cores, cores_by_kind, host_unit_ms = cpu_window(pid, spec["window_s"])
        # The window's last records may still be on their way: wait until later ones arrived.
        deadline = t1 + spec.get("drain_s", 60)
        while time.time() < deadline and not any(put > t1 + 1 for put, _ in arrivals(endpoint, out, t1).values()):
            time.sleep(1)
        error = query.exception()
    finally:
        query.stop()
    if error:
        raise RuntimeError(f"the pipeline query failed: {error}")
    ms = [(arrived - put) * 1000 for put, arrived in arrivals(endpoint, out, t0 - 1).values() if t0 <= put < t1]
    return latency_figures(ms, cores, cores_by_kind, host_unit_ms)
