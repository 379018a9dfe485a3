# SPDX-License-Identifier: Apache-2.0
"""End to end, a declarative pipeline (`spark-pipelines run`) that reads Kinesis into streaming
tables, one defined in SQL (`FROM STREAM read_kinesis(...)`) and one in Python: the example of
examples/pipelines/, pointed at a stream of the local Kinesis."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pyspark
import pytest

import pyspark_kinesis
from streaming import make_records

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "pipelines"
SPARK_PIPELINES = Path(sys.executable).parent / "spark-pipelines"

pytestmark = [
    pytest.mark.skipif(
        tuple(int(part) for part in pyspark.__version__.split(".")[:2]) < (4, 2) or not SPARK_PIPELINES.exists(),
        reason="the SQL pipeline reads FROM STREAM read_kinesis(...), which parses from Spark 4.2 on; "
        "spark-pipelines comes with PySpark 4.1+",
    ),
]


def pipeline_for(kinesis, stream, root):
    """The example pipeline, copied to `root`, reading `stream` of the local Kinesis."""
    shutil.copytree(EXAMPLE, root)
    spec = root / "pipeline.yml"
    spec.write_text(spec.read_text().replace("file:///tmp/kinesis_orders/storage", (root / "storage").as_uri()))
    sql = root / "transformations" / "orders.sql"
    sql.write_text(
        sql.read_text()
        .replace("'orders'", f"'{stream}'")
        .replace("region => 'us-east-1'", f"region => '{kinesis.region}', endpoint => '{kinesis.endpoint}'")
    )
    python = root / "transformations" / "orders.py"
    python.write_text(
        python.read_text()
        .replace('"orders"', f'"{stream}"')
        .replace(
            '.option("region", "us-east-1")',
            f'.option("region", "{kinesis.region}").option("endpoint", "{kinesis.endpoint}")',
        )
    )
    return spec


def run_pipeline(spec, warehouse, conf_dir=None, timeout=600):
    """`spark-pipelines run` as docs/pipelines.md tells users to run it; its output. Without
    `conf_dir`, the connector's settings on the command line (one run); with it, in the
    spark-defaults.conf of that folder (SPARK_CONF_DIR), as for runs that read on."""
    command = [str(SPARK_PIPELINES), "run", "--spec", str(spec)]
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable, "PATH": f"{SPARK_PIPELINES.parent}:{os.environ['PATH']}"}
    if conf_dir:
        env["SPARK_CONF_DIR"] = str(conf_dir)
    else:
        command += [
            "--jars",
            pyspark_kinesis.jar_path(),
            "--conf",
            f"spark.sql.extensions={pyspark_kinesis.SQL_EXTENSIONS}",
            "--conf",
            f"spark.sql.warehouse.dir={warehouse}",
        ]
    done = subprocess.run(
        command, cwd=spec.parent, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"spark-pipelines run failed ({done.returncode}):\n{output[-6000:]}"
    assert "Run is COMPLETED" in output, output[-6000:]
    return output


def lasting_catalog_conf(root, warehouse):
    """A Spark conf folder as docs/pipelines.md gives it for runs that read on: the connector,
    and a Hive catalog whose metastore (Derby) and warehouse outlive each run."""
    root.mkdir()
    metastore = warehouse.parent / "metastore_db"
    (root / "spark-defaults.conf").write_text(
        f"spark.jars {pyspark_kinesis.jar_path()}\n"
        f"spark.sql.extensions {pyspark_kinesis.SQL_EXTENSIONS}\n"
        "spark.sql.catalogImplementation hive\n"
        f"spark.sql.warehouse.dir {warehouse.as_uri()}\n"
        f"spark.hadoop.javax.jdo.option.ConnectionURL jdbc:derby:;databaseName={metastore};create=true\n"
    )
    return root


def test_a_pipeline_reads_a_stream_into_streaming_tables_in_sql_and_in_python(spark, kinesis, tmp_path):
    """One `spark-pipelines run`: every record of the stream in both tables, none twice."""
    stream = kinesis.create_stream(shards=2)
    records = make_records(20, "first")
    kinesis.put_records(stream, records)
    spec = pipeline_for(kinesis, stream, tmp_path / "pipeline")
    warehouse = tmp_path / "warehouse"

    run_pipeline(spec, warehouse)
    expected = sorted(data.decode() for _, data in records)
    for table in ("orders_sql", "orders_py"):
        assert sorted(payloads(spark, warehouse / table)) == expected, table


def test_a_second_pipeline_run_reads_on_from_its_checkpoints(spark, kinesis, tmp_path):
    """Two runs over a lasting catalog: the second finds the tables of the first and appends only
    the records put since, so each table holds every record once."""
    stream = kinesis.create_stream(shards=2)
    first, second = make_records(20, "first"), make_records(10, "second")
    kinesis.put_records(stream, first)
    spec = pipeline_for(kinesis, stream, tmp_path / "pipeline")
    warehouse = tmp_path / "warehouse"
    conf_dir = lasting_catalog_conf(tmp_path / "conf", warehouse)

    run_pipeline(spec, warehouse, conf_dir)
    kinesis.put_records(stream, second)
    run_pipeline(spec, warehouse, conf_dir)
    expected = sorted(data.decode() for _, data in first + second)
    for table in ("orders_sql", "orders_py"):
        assert sorted(payloads(spark, warehouse / table)) == expected, table


def payloads(spark, table):
    """The payload column of a pipeline's table, read from its Parquet files in the warehouse."""
    return [row.payload for row in spark.read.parquet(str(table)).collect()]
