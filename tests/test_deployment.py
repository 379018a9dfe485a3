"""End to end: the connector reached the ways users reach it besides configure():
spark-submit --packages from the local Maven repository, and executors in their own JVMs."""

import json
import os
import subprocess
import sys
from pathlib import Path

from streaming import make_records

APP = Path(__file__).parent / "apps" / "read_stream_to_json.py"
REPO = Path(__file__).resolve().parent.parent


def project_version():
    text = (REPO / "project" / "Versions.scala").read_text()
    return text.split('val project = "')[1].split('"')[0]


def spark_submit(args, tmp_path, timeout=300):
    bin_dir = Path(sys.executable).parent
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable)
    command = [str(bin_dir / "spark-submit"), "--conf", "spark.ui.enabled=false", *args]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)
    log = tmp_path / "spark-submit.log"
    log.write_text(done.stdout + done.stderr)
    assert done.returncode == 0, f"spark-submit failed, log in {log}:\n{done.stderr[-4000:]}"
    return done.stdout


def read_json_rows(directory):
    return [json.loads(line) for f in Path(directory).glob("*.json") for line in f.read_text().splitlines()]


def test_spark_submit_packages_resolves_the_published_connector(kinesis, tmp_path):
    stream = kinesis.create_stream(shards=2)
    records = make_records(100)
    kinesis.put_records(stream, records)
    output = tmp_path / "out"

    # A fresh Ivy home, so the jar comes from the local Maven repository (publishM2), not a cache.
    spark_submit(["--master", "local[2]", "--conf", f"spark.jars.ivy={tmp_path / 'ivy'}",
                  "--packages", f"io.github.sparkkinesis:spark-sql-kinesis_2.13:{project_version()}",
                  str(APP), stream, kinesis.endpoint, kinesis.region, str(output)], tmp_path)

    rows = read_json_rows(output)
    assert sorted((r["partitionKey"], r["data"]) for r in rows) == sorted((k, d.decode()) for k, d in records)


def test_executors_in_separate_jvms_read_every_record_once(kinesis, tmp_path):
    import pyspark_kinesis

    stream = kinesis.create_stream(shards=4)
    records = make_records(400)
    placed = kinesis.put_records(stream, records)
    output = tmp_path / "out"

    stdout = spark_submit(["--master", "local-cluster[2,1,1024]", "--jars", pyspark_kinesis.jar_path(),
                           str(APP), stream, kinesis.endpoint, kinesis.region, str(output)], tmp_path)

    assert "EXECUTOR_JVMS=3" in stdout, "two executor JVMs besides the driver"
    rows = read_json_rows(output)
    assert len(rows) == len(records)
    assert {(r["shardId"], r["sequenceNumber"]) for r in rows} == set(placed)
