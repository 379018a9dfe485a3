# SPDX-License-Identifier: Apache-2.0
"""The main job: video watch events flow from Kinesis into a bronze Delta Lake table.

By default it runs against the embedded local Kinesis (kinesis-mock, started from
localstack/ and stopped again at the end): it creates a stream with several shards,
produces watch events continuously while a Structured Streaming query with
format("kinesis") appends them to a Delta table, then stops and checks that every event
produced is in the table exactly once.

Against a real stream: pass --stream and --region (credentials come from the AWS default
chain: environment, profile, instance role). The demo then produces to that stream too, and
counts only the events of its own run (each event carries the run id).

    python examples/demo/watch_events_demo.py [--events 3000] [--shards 4]
    python examples/demo/watch_events_demo.py --stream my-stream --region eu-west-1
"""

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import boto3
from delta_jars import delta_jars

REPO = Path(__file__).resolve().parents[2]
# Not under --workdir, which each run empties.
DELTA_JARS_DIR = REPO / ".demo-jars"
EVENT_TYPES = ("play", "pause", "seek", "resume", "stop", "complete")
DEVICES = ("tv", "phone", "tablet", "web")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--stream", help="an existing stream to use (default: create one on the local Kinesis)")
    p.add_argument("--region", default=os.environ.get("AWS_REGION", "us-east-1"))
    p.add_argument(
        "--endpoint",
        default=os.environ.get("KINESIS_ENDPOINT"),
        help="Kinesis endpoint URL (default: the local Kinesis, or AWS when --stream is given)",
    )
    p.add_argument("--shards", type=int, default=4, help="shards of the stream the demo creates")
    p.add_argument("--events", type=int, default=3000, help="watch events to produce")
    p.add_argument("--rate", type=int, default=500, help="events produced per second")
    p.add_argument("--workdir", default=str(REPO / ".demo"), help="where the table and checkpoint go")
    p.add_argument("--timeout", type=int, default=300, help="seconds to wait for every event")
    return p.parse_args()


class LocalKinesis:
    """The embedded local Kinesis, started for the demo and stopped afterwards (unless it was
    already running, e.g. after `make kinesis-up`: then it is left running)."""

    def __init__(self, region):
        self.region = region
        self.env = dict(os.environ, AWS_REGION=region)
        self.endpoint = "http://127.0.0.1:%s" % os.environ.get("KINESIS_LOCAL_PLAIN_PORT", "4568")
        self.started_here = False

    def __enter__(self):
        started = subprocess.run(
            [str(REPO / "localstack" / "start-kinesis.sh")], env=self.env, check=True, capture_output=True, text=True
        )
        print(started.stdout.strip(), flush=True)
        self.started_here = "already running" not in started.stdout
        return self

    def __exit__(self, *exc):
        if self.started_here:
            subprocess.run([str(REPO / "localstack" / "stop-kinesis.sh")], env=self.env, check=False)


def watch_event(run_id, n):
    return {
        "run_id": run_id,
        "event_id": n,
        "event_type": random.choice(EVENT_TYPES),
        "user_id": "user-%04d" % random.randrange(500),
        "video_id": "video-%03d" % random.randrange(120),
        "device": random.choice(DEVICES),
        "position_s": random.randrange(7200),
        "event_time": time.time(),
    }


def produce(client, stream, run_id, total, rate, produced, stop):
    """Puts `total` events at about `rate`/s, in PutRecords batches; retries failed entries."""
    batch_size = max(1, min(500, rate // 5))
    n = 0
    while n < total and not stop.is_set():
        started = time.monotonic()
        events = [watch_event(run_id, i) for i in range(n, min(total, n + batch_size))]
        pending = [{"Data": json.dumps(e).encode(), "PartitionKey": e["user_id"]} for e in events]
        while pending:
            result = client.put_records(StreamName=stream, Records=pending)
            pending = [r for r, out in zip(pending, result["Records"]) if "ErrorCode" in out]
            if pending:
                time.sleep(0.5)
        n += len(events)
        produced[0] = n
        time.sleep(max(0.0, len(events) / rate - (time.monotonic() - started)))


DEMO_LOG4J2 = Path(__file__).resolve().parent / "log4j2.properties"


def spark_session(jars_dir=DELTA_JARS_DIR):
    """A local session with the connector and Delta Lake; Delta's jars are files fetched with
    Maven (delta_jars.py), so Spark resolves no packages and the state of ~/.m2 cannot matter."""
    from pyspark.sql import SparkSession

    import pyspark_kinesis

    master = os.environ.get("DEMO_SPARK_MASTER", "local[2]")
    if master.startswith("local"):  # everything on this machine: no warning about its host name
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    builder = (
        SparkSession.builder.appName("kinesis-watch-events-demo")
        .master(master)
        .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
        .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
        .config("spark.sql.shuffle.partitions", "2")
        # Streaming queries run without adaptive execution; Spark warns when it is on.
        .config("spark.sql.adaptive.enabled", "false")
        # The bronze plan has more fields than Spark's default before it warns of truncating.
        .config("spark.sql.debug.maxToStringFields", "100")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile=file:{DEMO_LOG4J2}")
    )
    builder = pyspark_kinesis.configure(builder, extra_jars=delta_jars(jars_dir))
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    return spark


def quiet_expected_stop_warnings(spark):
    """Stopping the query cancels its job group and the connector's prefetch jobs; Spark warns
    about each cancelled task and about a group with no job left to cancel. Those are expected
    on a clean stop, so only errors of those two loggers are shown from here on."""
    jvm = spark.sparkContext._jvm
    for logger in ("org.apache.spark.scheduler.DAGScheduler", "org.apache.spark.scheduler.TaskSetManager"):
        jvm.org.apache.logging.log4j.core.config.Configurator.setLevel(logger, jvm.org.apache.logging.log4j.Level.ERROR)


def run(args, endpoint, stream, client):
    from pyspark.sql import functions as F

    run_id = uuid.uuid4().hex[:12]
    workdir = Path(args.workdir)
    table, checkpoint = workdir / "bronze_watch_events", workdir / "checkpoints" / "bronze_watch_events"
    shutil.rmtree(workdir, ignore_errors=True)

    spark = spark_session()
    reader = (
        spark.readStream.format("kinesis")
        .option("streamName", stream)
        .option("region", args.region)
        # A stream the demo made is read from its start; a shared one from now on.
        .option("initialPosition", "latest" if args.stream else "trim_horizon")
        .option("maxFetchDuration", "2s")
    )
    if endpoint:
        reader = reader.option("endpoint", endpoint)
    events = reader.load()

    event_schema = (
        "run_id string, event_id long, event_type string, user_id string, "
        "video_id string, device string, position_s int, event_time double"
    )
    bronze = (
        events.withColumn("body", F.col("data").cast("string"))
        .withColumn("event", F.from_json("body", event_schema))
        .select(
            "stream",
            "shardId",
            "sequenceNumber",
            "partitionKey",
            "approximateArrivalTimestamp",
            "body",
            "event.run_id",
            "event.event_type",
            "event.event_id",
        )
    )
    query = (
        bronze.writeStream.format("delta")
        .option("checkpointLocation", str(checkpoint))
        # No fixed interval: each batch starts when the one before has committed, so a
        # slow first batch (a cold JVM) never leaves the query "falling behind".
        .start(str(table))
    )
    if args.stream:
        time.sleep(10)  # let "latest" settle before producing into a shared stream

    produced, stop = [0], threading.Event()
    producer = threading.Thread(target=produce, args=(client, stream, run_id, args.events, args.rate, produced, stop))
    producer.start()
    print(f"Producing {args.events} watch events to '{stream}' at ~{args.rate}/s while the query runs ...", flush=True)

    ingested, deadline = 0, time.monotonic() + args.timeout
    try:
        while time.monotonic() < deadline:
            if query.exception():
                raise query.exception()
            if not producer.is_alive() and ingested >= produced[0]:
                break
            time.sleep(3)
            if any((table / "_delta_log").glob("*.json")):  # after the table's first commit
                ingested = spark.read.format("delta").load(str(table)).where(F.col("run_id") == run_id).count()
            print(f"  produced {produced[0]:>6}   in bronze table {ingested:>6}", flush=True)
    finally:
        stop.set()
        producer.join()
        quiet_expected_stop_warnings(spark)
        query.stop()

    rows = spark.read.format("delta").load(str(table)).where(F.col("run_id") == run_id)
    ingested = rows.count()
    distinct = rows.select("event_id").distinct().count()
    print()
    print(f"Events produced:           {produced[0]}")
    print(f"Rows in the bronze table:  {ingested}  ({distinct} distinct events)  at {table}")
    print("Events per type, read back from the table:")
    for row in rows.groupBy("event_type").count().orderBy("event_type").collect():
        print(f"  {row['event_type']:<10} {row['count']:>6}")
    spark.stop()
    ok = produced[0] == ingested == distinct == args.events
    print("\nOK: every event arrived exactly once." if ok else "\nMISMATCH: produced and ingested differ.")
    return 0 if ok else 1


def main():
    args = parse_args()
    if args.stream:  # a real (or already running) Kinesis: nothing to start, nothing to create
        client = boto3.client("kinesis", region_name=args.region, endpoint_url=args.endpoint)
        return run(args, args.endpoint, args.stream, client)

    os.environ.setdefault("AWS_ACCESS_KEY_ID", "AKIAIOSFODNN7EXAMPLE")  # kinesis-mock checks the
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "local-demo-secret")  # format, not the key
    with LocalKinesis(args.region) as local:
        client = boto3.client("kinesis", region_name=args.region, endpoint_url=local.endpoint)
        stream = f"watch-events-{uuid.uuid4().hex[:8]}"
        client.create_stream(StreamName=stream, ShardCount=args.shards)
        client.get_waiter("stream_exists").wait(StreamName=stream, WaiterConfig={"Delay": 1})
        print(f"Created stream '{stream}' with {args.shards} shards on the local Kinesis at {local.endpoint}")
        return run(args, local.endpoint, stream, client)


if __name__ == "__main__":
    sys.exit(main())
