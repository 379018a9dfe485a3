# SPDX-License-Identifier: Apache-2.0
"""The reliability harness's read in a JVM of its own (spark-submit, for local-cluster masters):
starts the query of harness.start_query and prints "ROWS <n>" (rows in the table) every second,
and "METRICS <json>" (the source's metrics) for each progress the query made, until the file
STOP appears next to the table, then lets the query process everything its source
offers (so a record read twice would be in the table) and stops it.

    read_into_table.py CONFIG_JSON   (options, out, checkpoint, trigger)
"""

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "support"))
from harness import fail_if_failed, start_query, table_count  # noqa: E402
from pyspark.sql import SparkSession  # noqa: E402

config = json.loads(sys.argv[1])
spark = SparkSession.builder.getOrCreate()
spark.sparkContext.setLogLevel("ERROR")
query = start_query(spark, config["options"], config["out"], config["checkpoint"], config["trigger"])
stop = Path(config["out"]).parent / "STOP"
deadline = time.monotonic() + 600
reported = set()
try:
    while not stop.exists() and time.monotonic() < deadline:
        fail_if_failed(query)
        print(f"ROWS {table_count(spark, config['out'])}", flush=True)
        for progress in query.recentProgress:
            if progress["timestamp"] not in reported:
                reported.add(progress["timestamp"])
                print(f"METRICS {json.dumps(progress['sources'][0].get('metrics') or {})}", flush=True)
        time.sleep(1)
    fail_if_failed(query)
    if query.isActive:
        query.processAllAvailable()
finally:
    query.stop()
print("DONE", flush=True)
spark.stop()
