# SPDX-License-Identifier: Apache-2.0
"""A standalone PySpark app for the tests that need their own JVM (spark-submit --packages,
local-cluster): reads a stream with Trigger.AvailableNow and prints the rows as JSON lines.

    read_stream_to_json.py STREAM ENDPOINT REGION OUTPUT_DIR
"""

import sys

from pyspark.sql import SparkSession

stream, endpoint, region, output = sys.argv[1:5]
spark = SparkSession.builder.getOrCreate()
df = (
    spark.readStream.format("kinesis")
    .option("streamName", stream)
    .option("endpoint", endpoint)
    .option("region", region)
    .option("initialPosition", "trim_horizon")
    .option("maxFetchDuration", "2s")
    .option("minFetchPeriod", "200ms")
    .load()
    .selectExpr("partitionKey", "CAST(data AS STRING) AS data", "shardId", "sequenceNumber")
)
query = (
    df.writeStream.format("json")
    .option("path", output)
    .option("checkpointLocation", output + "-checkpoint")
    .trigger(availableNow=True)
    .start()
)
query.awaitTermination()
executors = spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size()
print(f"EXECUTOR_JVMS={executors}")
spark.stop()
