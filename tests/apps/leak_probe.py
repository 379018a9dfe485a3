# SPDX-License-Identifier: Apache-2.0
"""A PySpark app for tests/test_secrets_do_not_leak.py: uses keys given as options in every
way a user might, and writes down everything Spark and the connector show about it, so the
test can look for the keys in all of it.

    leak_probe.py OUTPUT_DIR ENDPOINT REGION STREAM CHECKING_ENDPOINT

CHECKING_ENDPOINT is a Kinesis that checks keys (moto's, with IAM authentication on), which
rejects these fake ones: that error names the credentials it was given.

The keys come from the environment (LEAK_ACCESS_KEY, LEAK_SECRET_KEY, LEAK_SESSION_TOKEN, the
proxy's password LEAK_PROXY_PASSWORD and a provider's parameter LEAK_PROVIDER_PARAM), not the
command line, which Spark shows on its environment page (sun.java.command).
Writes into OUTPUT_DIR: explain-*.txt, query-*.txt, failure-*.txt, ui/*.html|json, and the
query's checkpoint; the driver log and event log go where spark-submit's options say.
"""

import json
import os
import sys
import traceback
import urllib.error
import urllib.request
from pathlib import Path

from pyspark.sql import SparkSession

from pyspark_kinesis.schema_registry import from_gsr_avro, from_gsr_json, to_gsr_json

output, endpoint, region, stream, checking_endpoint = sys.argv[1:6]
out = Path(output)
out.mkdir(parents=True, exist_ok=True)
secrets = {
    "awsAccessKey": os.environ["LEAK_ACCESS_KEY"],
    "awsSecretKey": os.environ["LEAK_SECRET_KEY"],
    "awsSessionToken": os.environ["LEAK_SESSION_TOKEN"],
}

spark = SparkSession.builder.getOrCreate()
jvm = spark.sparkContext._jvm
assert jvm is not None


def write(name, text):
    (out / name).write_text(str(text))


def reader(**options):
    r = spark.readStream.format("kinesis")
    base = {
        "streamName": stream,
        "endpoint": endpoint,
        "region": region,
        "initialPosition": "trim_horizon",
        "maxFetchDuration": "1s",
        "minFetchPeriod": "200ms",
        **secrets,
    }
    for key, value in {**base, **options}.items():
        if value is not None:
            r = r.option(key, value)
    return r


def failure(name, action):
    """Runs action, which must fail, and writes what a user sees of the failure."""
    try:
        action()
    except Exception as e:  # noqa: BLE001 - every failure is written down, whatever its type
        write(f"failure-{name}.txt", f"{e}\n{e!r}\n{traceback.format_exc()}")
        return
    write(f"failure-{name}.txt", "DID NOT FAIL")


# 1. A query that works, and everything it shows.
df = reader().load()
write("explain-analyzed.txt", df._jdf.queryExecution().toString())
for mode in ("simple", "extended", "codegen", "cost", "formatted"):
    try:  # what df.explain(mode=...) prints
        write(f"explain-{mode}.txt", jvm.PythonSQLUtils.explainString(df._jdf.queryExecution(), mode))
    except Exception as e:  # noqa: BLE001 - some modes refuse streaming plans; that is shown too
        write(f"explain-{mode}.txt", str(e))
df.explain(True)  # to stdout, which the test reads too

query = (
    df.writeStream.format("parquet")
    .queryName("leak_probe")
    .option("path", str(out / "sink"))
    .option("checkpointLocation", str(out / "checkpoint"))
    .trigger(availableNow=True)
    .start()
)
query.awaitTermination()
write("query-tostring.txt", query._jsq.toString())
write("query-status.txt", json.dumps(query.status, default=str))
write("query-last-progress.txt", json.dumps(query.lastProgress, default=str))
write("query-recent-progress.txt", json.dumps(query.recentProgress, default=str))
write("query-explain.txt", query._jsq.explainInternal(True))
write("query-name-id.txt", f"{query.name} {query.id} {query.runId}")
write("rows.txt", spark.read.parquet(str(out / "sink")).count())

# 2. Queries that fail: at run time, and when the options are read.
failure(
    "stream-not-found",
    lambda: (
        reader(streamName="leak-probe-no-such-stream")
        .load()
        .writeStream.format("memory")
        .queryName("missing")
        .trigger(availableNow=True)
        .start()
        .awaitTermination()
    ),
)
failure(
    "sts-unreachable",
    lambda: (
        reader(roleArn="arn:aws:iam::123456789012:role/leak-probe", stsEndpoint="http://127.0.0.1:9")
        .load()
        .writeStream.format("memory")
        .queryName("role")
        .trigger(availableNow=True)
        .start()
        .awaitTermination()
    ),
)
failure(
    "rejected-keys",
    lambda: (
        reader(endpoint=checking_endpoint, streamName="leak-probe")
        .load()
        .writeStream.format("memory")
        .queryName("rejected")
        .trigger(availableNow=True)
        .start()
        .awaitTermination()
    ),
)
failure("secret-without-access-key", lambda: reader(awsAccessKey=None).load())
failure("misspelt-secret-option", lambda: reader(awsSecretKye=secrets["awsSecretKey"]).load())
failure("bad-region", lambda: reader(region="us-nowhere-1").load())
# Through a proxy that is not there: its password must not show either.
proxied = {
    "proxyHost": "127.0.0.1",
    "proxyPort": "9",
    "proxyUsername": "leak-probe",
    "proxyPassword": os.environ["LEAK_PROXY_PASSWORD"],
}
write("explain-proxied.txt", reader(**proxied).load()._jdf.queryExecution().toString())
failure(
    "proxy-unreachable",
    lambda: (
        reader(**proxied)
        .load()
        .writeStream.format("memory")
        .queryName("proxied")
        .trigger(availableNow=True)
        .start()
        .awaitTermination()
    ),
)

# Under awslabs' names, a provider class's secret parameter: Spark's patterns do not match that name.
provided = {
    "awsAccessKey": None,
    "awsSecretKey": None,
    "awsSessionToken": None,
    "kinesis.credentialProviderClass": "software.amazon.awssdk.auth.credentials.ProfileCredentialsProvider",
    "kinesis.credentialProviderParam": os.environ["LEAK_PROVIDER_PARAM"],
}
write("explain-provided.txt", reader(**provided).load()._jdf.queryExecution().toString())

# The Glue Schema Registry functions, with the same keys: a plan, a registry that rejects them
# (moto's, which checks keys), one that cannot be reached, through a proxy, and a failing write.
ORDER_JSON_SCHEMA = '{"type": "object", "properties": {"id": {"type": "integer"}}}'
registry = {"schemaName": "leak-probe", "region": region, "endpoint": checking_endpoint, **secrets}
unreachable = {**registry, "endpoint": "http://127.0.0.1:9"}
binary = spark.range(1).selectExpr("CAST('x' AS BINARY) AS data")
decoded = reader().load().select(from_gsr_json("data", {**registry, "schemaDefinition": ORDER_JSON_SCHEMA}).alias("o"))
write("explain-registry.txt", decoded._jdf.queryExecution().toString())
failure("registry-rejected-keys", lambda: binary.select(from_gsr_avro("data", registry)).collect())
failure("registry-unreachable", lambda: binary.select(from_gsr_json("data", unreachable)).collect())
failure("registry-proxied", lambda: binary.select(from_gsr_avro("data", {**unreachable, **proxied})).collect())
failure(
    "registry-write",
    lambda: (
        spark.range(1)
        .selectExpr("struct(id) AS o")
        .select(to_gsr_json("o", {**unreachable, "schemaDefinition": ORDER_JSON_SCHEMA, "autoRegistration": "true"}))
        .collect()
    ),
)

# In SQL, the keys written as literals: read_kinesis's named arguments (a batch read, which runs,
# so its plan reaches the UI and the event log), and a registry function's map of options.
read_arguments = {"streamName": stream, "endpoint": endpoint, "region": region, **secrets}
sql_read = "SELECT * FROM read_kinesis(" + ", ".join(f"{k} => '{v}'" for k, v in read_arguments.items()) + ")"
write("explain-sql-read.txt", spark.sql("EXPLAIN EXTENDED " + sql_read).collect()[0][0])
write("sql-read-rows.txt", spark.sql(sql_read).count())
sql_registry = ", ".join(f"'{k}', '{v}'" for k, v in {**unreachable, "schemaDefinition": ORDER_JSON_SCHEMA}.items())
failure(
    "sql-registry",
    lambda: spark.sql(f"SELECT from_gsr_json(data, map({sql_registry})) AS o FROM VALUES (X'00') AS t(data)").collect(),
)
# 3. The Spark UI: SQL, environment, jobs, stages and streaming pages, and the REST API.
ui = spark.sparkContext.uiWebUrl
assert ui is not None
app_id = spark.sparkContext.applicationId
(out / "ui").mkdir(exist_ok=True)
pages = {
    "sql": "/SQL/",
    "environment": "/environment/",
    "jobs": "/jobs/",
    "stages": "/stages/",
    "streaming": "/StreamingQuery/",
    "api-sql": f"/api/v1/applications/{app_id}/sql?details=true&planDescription=true",
    "api-environment": f"/api/v1/applications/{app_id}/environment",
    "api-jobs": f"/api/v1/applications/{app_id}/jobs",
}
pages.update({f"sql-execution-{i}": f"/SQL/execution/?id={i}" for i in range(30)})
pages["streaming-statistics"] = f"/StreamingQuery/statistics/?id={query.runId}"
fetched = 0
for name, path in pages.items():
    try:
        with urllib.request.urlopen(ui + path, timeout=30) as response:
            (out / "ui" / f"{name}.html").write_bytes(response.read())
            fetched += 1
    except urllib.error.HTTPError as e:
        (out / "ui" / f"{name}.error").write_text(f"{e.code}")
write("ui-fetched.txt", fetched)

spark.stop()
print("LEAK_PROBE_DONE")
