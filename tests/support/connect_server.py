# SPDX-License-Identifier: Apache-2.0
"""A local Spark Connect server for the tests, started with the connector jar the way
docs/installing.md says to: `spark-submit --class ...SparkConnectServer --jars <connector jar>`. pip's pyspark has
no sbin/start-connect-server.sh, but carries the server's jar (spark-connect_2.13) from 4.0 on;
for 3.5 the server is the separate package spark-connect_2.12, which `--packages` brings in."""

import os
import signal
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from kinesis_local import free_ports
from pyspark_kinesis import SQL_EXTENSIONS

SERVER_CLASS = "org.apache.spark.sql.connect.service.SparkConnectServer"


# The newest spark-connect_2.12 of the 3.5 line in Maven Central: 3.5.8 and 3.5.9 were not
# published there. A patch release's server runs on any Spark of its line.
SPARK_CONNECT_3_5 = "3.5.7"


def server_packages():
    """`--packages` for the server of the running pyspark: none from 4.0 (pip's pyspark has it)."""
    import pyspark

    if pyspark.__version__.startswith("3.5."):
        return ["--packages", f"org.apache.spark:spark-connect_2.12:{SPARK_CONNECT_3_5}"]
    return []


def _listening(port):
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


@contextmanager
def connect_server(jar, log_dir, timeout=240):
    """Yields the server's `sc://127.0.0.1:<port>` URL; the server has the jar `jar` (none if
    None), sees this process's environment (the AWS credentials the kinesis fixture set) and
    is stopped at exit."""
    (port,) = free_ports(1)
    spark_submit = Path(sys.executable).parent / "spark-submit"
    log = Path(log_dir) / "connect-server.log"
    command = [
        str(spark_submit),
        "--class",
        SERVER_CLASS,
        "--master",
        "local[2]",
        *server_packages(),
        *(["--jars", jar, "--conf", f"spark.sql.extensions={SQL_EXTENSIONS}"] if jar else []),
        "--conf",
        f"spark.connect.grpc.binding.port={port}",
        "--conf",
        "spark.connect.grpc.binding.address=127.0.0.1",
        "--conf",
        "spark.ui.enabled=false",
        "--conf",
        "spark.sql.shuffle.partitions=2",
    ]
    with open(log, "w") as out:
        server = subprocess.Popen(
            command,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=dict(os.environ, PYSPARK_PYTHON=sys.executable),
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + timeout
        while not _listening(port):
            if server.poll() is not None:
                raise RuntimeError(
                    f"the Connect server exited ({server.returncode}); log in {log}:\n" + log.read_text()[-3000:]
                )
            if time.monotonic() > deadline:
                raise TimeoutError(f"the Connect server did not listen on {port} within {timeout}s; log in {log}")
            time.sleep(0.5)
        yield f"sc://127.0.0.1:{port}"
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
