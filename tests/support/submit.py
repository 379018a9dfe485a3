# SPDX-License-Identifier: Apache-2.0
"""Running a PySpark app in its own JVM with spark-submit, for tests that need JVM settings
the shared session cannot have (environment, trust store, log configuration)."""

import json
import os
import subprocess
import sys
from pathlib import Path

APPS = Path(__file__).resolve().parents[1] / "apps"

# Credentials of the test process (the kinesis fixture's fake keys, or a developer's own)
# that a subprocess must not inherit when a test decides where its credentials come from.
AWS_CREDENTIAL_VARIABLES = (
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_PROFILE",
    "AWS_SHARED_CREDENTIALS_FILE",
    "AWS_CONFIG_FILE",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
)


def spark_submit(args, log_dir, env=None, timeout=300, check=True, ui=False):
    """Runs bin/spark-submit of the installed pyspark (local[2], the wheel's connector jar,
    no UI unless `ui`) with `args`; stdout and stderr go to log_dir/spark-submit.log.
    Returns the CompletedProcess."""
    import pyspark_kinesis

    bin_dir = Path(sys.executable).parent
    run_env = dict(
        env if env is not None else os.environ, PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable
    )
    command = [
        str(bin_dir / "spark-submit"),
        "--master",
        "local[2]",
        "--jars",
        pyspark_kinesis.jar_path(),
        *([] if ui else ["--conf", "spark.ui.enabled=false"]),
        *args,
    ]
    done = subprocess.run(command, env=run_env, capture_output=True, text=True, timeout=timeout)
    log = Path(log_dir) / "spark-submit.log"
    log.write_text(done.stdout + done.stderr)
    if check:
        assert done.returncode == 0, f"spark-submit failed, log in {log}:\n{done.stderr[-4000:]}"
    return done


def env_without_aws_credentials(**extra):
    env = {k: v for k, v in os.environ.items() if k not in AWS_CREDENTIAL_VARIABLES}
    env.update(extra)
    return env


def read_json_rows(directory):
    return [json.loads(line) for f in Path(directory).glob("*.json") for line in f.read_text().splitlines()]
