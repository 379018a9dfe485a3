# SPDX-License-Identifier: Apache-2.0
"""A real-time query in a JVM of its own (spark-submit, for local-cluster masters): reads a
stream with trigger(realTime=...) into the foreach FileSink of tests/support/realtime.py and prints
"ROWS <n>" (rows delivered so far) every second until the file STOP appears next to the sink,
then stops the query and prints DONE.

    realtime_into_files.py CONFIG_JSON   (options, sink, checkpoint)
"""

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "support"))
from pyspark.sql import SparkSession  # noqa: E402
from realtime import MIN_BATCH_DURATION, deliveries, start_realtime  # noqa: E402

config = json.loads(sys.argv[1])
spark = SparkSession.builder.getOrCreate()
spark.sparkContext.setLogLevel("ERROR")
spark.conf.set(MIN_BATCH_DURATION, "1000")
df = spark.readStream.format("kinesis").options(**config["options"]).load()
query = start_realtime(df, config["sink"], config["checkpoint"])
stop = Path(config["sink"]).parent / "STOP"
deadline = time.monotonic() + 600
try:
    while not stop.exists() and time.monotonic() < deadline:
        if query.exception():
            raise query.exception()
        print(f"ROWS {len(deliveries(config['sink']))}", flush=True)
        time.sleep(1)
finally:
    query.stop()
print("DONE", flush=True)
spark.stop()
