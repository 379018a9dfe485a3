# SPDX-License-Identifier: Apache-2.0
"""A standalone streaming app for the executor-loss test: reads a stream with a processing-time
trigger into JSON files until it has seen EXPECTED rows, printing its progress (rows
written, records the prefetcher fetched). With a
CONSUMER name it reads with enhanced fan-out through that consumer (deregistered on stop).

    stream_until_count.py STREAM ENDPOINT REGION OUTPUT_DIR EXPECTED [CONSUMER]
"""

import sys
import time

from pyspark.sql import SparkSession

stream, endpoint, region, output, expected = sys.argv[1:6]
efo = (
    {"consumerMode": "efo", "consumerName": sys.argv[6], "requireConsumerDeregistration": "true"}
    if len(sys.argv) > 6
    else {}
)
spark = SparkSession.builder.getOrCreate()
spark.sparkContext.setLogLevel("ERROR")
df = (
    spark.readStream.format("kinesis")
    .option("streamName", stream)
    .option("endpoint", endpoint)
    .option("region", region)
    .option("initialPosition", "trim_horizon")
    .option("maxFetchDuration", "1s")
    .option("minFetchPeriod", "200ms")
    .option("shardsPerTask", "1")
    .options(**efo)
    .load()
    .selectExpr("partitionKey", "CAST(data AS STRING) AS data", "shardId", "sequenceNumber")
)
query = (
    df.writeStream.format("json")
    .option("path", output)
    .option("checkpointLocation", output + "-checkpoint")
    .trigger(processingTime="1 second")
    .start()
)
deadline = time.monotonic() + 300
rows = 0
while rows < int(expected) and time.monotonic() < deadline:
    time.sleep(1)
    error = query.exception()
    if error:
        raise error
    rows = sum(p["numInputRows"] for p in query.recentProgress)
    fetched = max((int(p["sources"][0]["metrics"].get("fetchedRecords", 0)) for p in query.recentProgress), default=0)
    print(f"ROWS {rows} FETCHED {fetched}", flush=True)
query.processAllAvailable()  # a record read twice would be in the output now
query.stop()
print("DONE", flush=True)
spark.stop()
