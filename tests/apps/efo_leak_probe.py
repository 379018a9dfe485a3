# SPDX-License-Identifier: Apache-2.0
"""A PySpark app for tests/test_secrets_do_not_leak.py's enhanced fan-out run: keys given as
options (session token included) to the consumer manager and to an EFO query, on whatever
master spark-submit names (the test uses local-cluster, so executors are JVMs of their own).

    efo_leak_probe.py OUTPUT_DIR ENDPOINT REGION STREAM CONSUMER_NAME

The keys come from the environment (LEAK_ACCESS_KEY, LEAK_SECRET_KEY, LEAK_SESSION_TOKEN).
Writes OUTPUT_DIR/rows.txt (rows read), app-id.txt and executors.txt (executor JVMs), and
prints EFO_LEAK_PROBE_DONE.
"""

import os
import sys
from pathlib import Path

from pyspark.sql import SparkSession

from pyspark_kinesis import AWSKinesisConsumerManager

output, endpoint, region, stream, consumer = sys.argv[1:6]
out = Path(output)
out.mkdir(parents=True, exist_ok=True)
secrets = {
    "awsAccessKey": os.environ["LEAK_ACCESS_KEY"],
    "awsSecretKey": os.environ["LEAK_SECRET_KEY"],
    "awsSessionToken": os.environ["LEAK_SESSION_TOKEN"],
}
connection = {"endpoint": endpoint, "region": region, **secrets}

spark = SparkSession.builder.getOrCreate()
(out / "app-id.txt").write_text(spark.sparkContext.applicationId)

# The consumer manager first, in a driver that has built no other client yet.
builder = AWSKinesisConsumerManager.newManager(spark)
for key, value in connection.items():
    builder = builder.option(key, value)
manager = builder.create()
manager.registerConsumer(stream, consumer)

reader = spark.readStream.format("kinesis")
for key, value in {
    **connection,
    "streamName": stream,
    "consumerMode": "efo",
    "consumerName": consumer,
    "consumerNamePrefix": "",
    "initialPosition": "trim_horizon",
    "maxFetchDuration": "2s",
    "minFetchPeriod": "200ms",
}.items():
    reader = reader.option(key, value)
query = (
    reader.load()
    .writeStream.format("parquet")
    .option("path", str(out / "sink"))
    .option("checkpointLocation", str(out / "checkpoint"))
    .trigger(availableNow=True)
    .start()
)
query.awaitTermination()
(out / "rows.txt").write_text(str(spark.read.parquet(str(out / "sink")).count()))
# The driver counts as one entry of the memory status; the rest are executors.
(out / "executors.txt").write_text(str(spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size() - 1))
manager.deregisterConsumer(stream, consumer)
spark.stop()
print("EFO_LEAK_PROBE_DONE")
