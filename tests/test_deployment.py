# SPDX-License-Identifier: Apache-2.0
"""End to end: the connector reached the ways users reach it besides configure():
spark-submit --packages from the local Maven repository, and --jars on executors in their own
JVMs (one of which is killed while the query reads)."""

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from processes import executor_pids
from streaming import make_records

APPS = Path(__file__).parent / "apps"
APP = APPS / "read_stream_to_json.py"
REPO = Path(__file__).resolve().parent.parent


def project_version():
    text = (REPO / "project" / "Versions.scala").read_text()
    return text.split('val project = "')[1].split('"')[0]


def spark_submit(args, tmp_path, timeout=300, **env_vars):
    bin_dir = Path(sys.executable).parent
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable, **env_vars)
    command = [str(bin_dir / "spark-submit"), "--conf", "spark.ui.enabled=false", *args]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)
    log = tmp_path / "spark-submit.log"
    log.write_text(done.stdout + done.stderr)
    assert done.returncode == 0, f"spark-submit failed, log in {log}:\n{done.stderr[-4000:]}"
    return done.stdout


def read_json_rows(directory):
    return [json.loads(line) for f in Path(directory).glob("*.json") for line in f.read_text().splitlines()]


def packages_source(tmp_path):
    """(spark-submit arguments, environment, version) that make --packages find the connector:
    the local Maven repository (publishM2) by default; with RELEASE_REPOSITORY (make
    test-release) that staged repository only, at RELEASE_VERSION, as --repositories, and a
    home without ~/.m2 so that Spark's resolver cannot take the jar from there."""
    staged = os.environ.get("RELEASE_REPOSITORY")
    if not staged:
        return [], {}, project_version()
    home = tmp_path / "home"
    home.mkdir()
    return ["--repositories", Path(staged).resolve().as_uri()], {"HOME": str(home)}, os.environ["RELEASE_VERSION"]


def test_spark_submit_packages_resolves_the_connector_of_this_spark_line(kinesis, tmp_path):
    """The artifact of the running pyspark's line (spark-sql-kinesis-<line>_<scala>), as
    publishM2 put it in the local Maven repository or as make release staged it; make
    test-compat runs it on every line."""
    from pyspark_kinesis._jvm import maven_coordinates

    stream = kinesis.create_stream(shards=2)
    records = make_records(100)
    kinesis.put_records(stream, records)
    output = tmp_path / "out"
    repositories, env, version = packages_source(tmp_path)

    # A fresh Ivy home, so the jar comes from the repository, not a cache.
    spark_submit(
        [
            "--master",
            "local[2]",
            "--conf",
            f"spark.jars.ivy={tmp_path / 'ivy'}",
            *repositories,
            "--packages",
            f"{maven_coordinates()}:{version}",
            str(APP),
            stream,
            kinesis.endpoint,
            kinesis.region,
            str(output),
        ],
        tmp_path,
        **env,
    )

    rows = read_json_rows(output)
    assert sorted((r["partitionKey"], r["data"]) for r in rows) == sorted((k, d.decode()) for k, d in records)


# Executors in their own JVMs, one of them killed: polling here; both modes, under faults as
# well, in the reliability suite (tests/reliability/test_executor_loss.py, make test-reliability).
def test_an_executor_killed_mid_stream_loses_and_repeats_nothing(kinesis, tmp_path):
    import pyspark_kinesis

    stream = kinesis.create_stream(shards=4)
    first, second = make_records(200, "first"), make_records(200, "second")
    output, log = tmp_path / "out", tmp_path / "app.log"
    bin_dir = Path(sys.executable).parent
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable)
    kinesis.put_records(stream, first)
    with open(log, "w") as log_file:
        app = subprocess.Popen(
            [
                str(bin_dir / "spark-submit"),
                "--master",
                "local-cluster[2,1,1024]",
                "--conf",
                "spark.ui.enabled=false",
                "--jars",
                pyspark_kinesis.jar_path(),
                str(APPS / "stream_until_count.py"),
                stream,
                kinesis.endpoint,
                kinesis.region,
                str(output),
                str(len(first) + len(second)),
            ],
            env=env,
            stdout=subprocess.PIPE,
            stderr=log_file,
            text=True,
        )
        assert app.stdout is not None
        try:
            seen = 0
            for line in app.stdout:
                if line.startswith("ROWS"):
                    seen = int(line.split()[1])
                if seen >= len(first):
                    break
            assert seen >= len(first), f"the app stopped early; log in {log}"
            kinesis.put_records(stream, second)
            # Killed once some of the second put is fetched into executor memory (read or not yet).
            for line in app.stdout:
                if line.startswith("ROWS") and int(line.split()[3]) > len(first):
                    break
            else:
                raise AssertionError(f"the app ended before it fetched the second put; log in {log}")
            victims = executor_pids(app.pid)
            assert len(victims) == 2, f"expected two executor JVMs, found {victims}"
            os.kill(victims[0], signal.SIGKILL)
            rest = app.stdout.read()
            assert app.wait(timeout=300) == 0, f"the app failed; log in {log}"
            assert "DONE" in rest
        finally:
            if app.poll() is None:
                app.kill()
    rows = read_json_rows(output)
    assert sorted(r["data"] for r in rows) == sorted(d.decode() for _, d in first + second), "lost or repeated"
