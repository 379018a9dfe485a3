# SPDX-License-Identifier: Apache-2.0
"""The gsr-avro row: rows per CPU-second of from_gsr_avro on Glue Schema Registry Avro records
next to Spark's from_avro on the same records without their 18-byte header, in one session.

The writer version is served by a stand-in registry on a loopback port (GetSchemaVersion for
one id); from_avro comes from the spark-avro package, which the row's session adds."""

import json
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from bench_backend import cpu_seconds

SCHEMA = {
    "type": "record",
    "name": "Order",
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "item", "type": "string"},
        {"name": "quantity", "type": "int"},
        {"name": "price", "type": "double"},
    ],
}


class StandInRegistry:
    """GetSchemaVersion of one version id, on a free loopback port, while open."""

    def __init__(self, version_id, definition):
        answer = json.dumps(
            {
                "SchemaVersionId": str(version_id),
                "SchemaArn": "arn:aws:glue:us-east-1:123456789012:schema/bench/orders",
                "VersionNumber": 1,
                "DataFormat": "AVRO",
                "SchemaDefinition": definition,
                "Status": "AVAILABLE",
            }
        ).encode()

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                self.send_response(200)
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def gsr_avro(spark, pid, spec, workdir):
    from pyspark.sql import functions as F
    from pyspark.sql.avro.functions import from_avro, to_avro

    from pyspark_kinesis.schema_registry import from_gsr_avro

    definition = json.dumps(SCHEMA)
    version = uuid.uuid4()
    header = bytes([3, 0]) + version.bytes
    orders = spark.range(spec["rows"], numPartitions=spec.get("partitions", 2)).select(
        F.struct(
            F.col("id"),
            F.concat(F.lit("item-"), F.col("id").cast("string")).alias("item"),
            (F.col("id") % 100).cast("int").alias("quantity"),
            (F.col("id") / 7.0).alias("price"),
        ).alias("o")
    )
    plain = orders.select(to_avro("o", definition).alias("plain"))
    records = plain.select("plain", F.concat(F.lit(header), F.col("plain")).alias("gsr")).cache()
    records.count()
    results = {}
    with StandInRegistry(version, definition) as registry:
        options = {
            "schemaDefinition": definition,
            "endpoint": registry.endpoint,
            "region": "us-east-1",
            "awsAccessKey": "AKIABENCH",
            "awsSecretKey": "bench",
        }
        decoders = {"from_avro": from_avro("plain", definition), "from_gsr_avro": from_gsr_avro("gsr", options)}
        for _ in range(2):  # the first round warms the JIT; the second is measured
            for name, column in decoders.items():
                before = cpu_seconds(pid)
                # One struct column: expanding it (v.*) could let the optimizer evaluate a decoder
                # once per field, which would measure the plan rather than the decoder.
                records.select(column.alias("v")).write.format("noop").mode("overwrite").save()
                results[name] = spec["rows"] / (cpu_seconds(pid) - before)
    records.unpersist()
    return {
        "rows": spec["rows"],
        "from_avro_rows_per_cpu_s": results["from_avro"],
        "from_gsr_avro_rows_per_cpu_s": results["from_gsr_avro"],
        "gsr_vs_plain": results["from_gsr_avro"] / results["from_avro"],
    }
