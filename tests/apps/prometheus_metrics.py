# SPDX-License-Identifier: Apache-2.0
"""A standalone app for the metrics-system test: a session with Spark's PrometheusServlet on
the driver UI, two queries reading STREAM (one named NAME, one without a name), and the
servlet's text read while both run, after the first stops and after both stop. Writes
{"query_ids", "running", "one_stopped", "stopped"} to OUTPUT as JSON.

    prometheus_metrics.py STREAM ENDPOINT REGION NAME EXPECTED_RECORDS OUTPUT
"""

import json
import re
import sys
import time
import urllib.request

from pyspark.sql import SparkSession

import pyspark_kinesis

stream, endpoint, region, name, expected, output = sys.argv[1:7]
builder = (
    SparkSession.builder.master("local[2]")
    .appName("kinesis-metrics")
    .config("spark.ui.enabled", "true")
    .config("spark.ui.port", "0")
    .config("spark.metrics.conf.*.sink.prometheusServlet.class", "org.apache.spark.metrics.sink.PrometheusServlet")
    .config("spark.metrics.conf.*.sink.prometheusServlet.path", "/metrics/prometheus")
)
spark = pyspark_kinesis.configure(builder).getOrCreate()
spark.sparkContext.setLogLevel("ERROR")
ui = spark.sparkContext.uiWebUrl
assert ui is not None, "the Spark UI is off: the servlet lives there"
servlet = ui + "/metrics/prometheus"


def scrape():
    with urllib.request.urlopen(servlet, timeout=30) as answer:
        return answer.read().decode()


def read():
    reader = (
        spark.readStream.format("kinesis")
        .option("streamName", stream)
        .option("endpoint", endpoint)
        .option("region", region)
        .option("initialPosition", "trim_horizon")
        .option("maxFetchDuration", "1s")
        .option("minFetchPeriod", "200ms")
    )
    return reader.load()


named = read().writeStream.format("noop").queryName(name).trigger(processingTime="1 second").start()
unnamed = read().writeStream.format("noop").trigger(processingTime="1 second").start()


def fetched_by_shards(text, query):
    """The sum of the per-shard fetchedRecords gauges of `query`."""
    pattern = rf"kinesis_{re.escape(query)}_[A-Za-z0-9_]+_shardId_\d+_fetchedRecords_Value\{{[^}}]*\}} (\d+)"
    return sum(int(v) for v in re.findall(pattern, text))


deadline = time.monotonic() + 240
while True:
    for query in (named, unnamed):
        if query.exception():
            raise query.exception()
    text = scrape()
    if all(fetched_by_shards(text, q.id.replace("-", "_")) >= int(expected) for q in (named, unnamed)):
        break
    if time.monotonic() >= deadline:
        jvm = spark.sparkContext._jvm
        assert jvm is not None
        registry = jvm.org.apache.spark.sql.kinesis.KinesisMetricsSource.registry()
        names = sorted(registry.get().getNames()) if registry.isDefined() else "no registry"
        raise AssertionError(
            f"the per-shard gauges did not reach {expected} records in 240 s; the source holds {names}"
        )
    time.sleep(0.5)
running = text
named.stop()
one_stopped = scrape()
unnamed.stop()
stopped = scrape()
with open(output, "w") as out:
    json.dump(
        {"query_ids": [named.id, unnamed.id], "running": running, "one_stopped": one_stopped, "stopped": stopped}, out
    )
spark.stop()
