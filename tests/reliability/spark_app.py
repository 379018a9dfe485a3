# SPDX-License-Identifier: Apache-2.0
"""A harness app run by spark-submit in a JVM of its own (local-cluster and standalone masters
need their own driver), followed from here: the rows it reports, the source metrics of its
last batches, whether it is done."""

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

APP = Path(__file__).parent / "apps" / "read_into_table.py"


class App:
    """The spark-submit process, its last ROWS count read by a thread. `confs`: more Spark
    settings ({key: value})."""

    def __init__(self, config, log, app=APP, master="local-cluster[2,1,1024]", confs=None):
        import pyspark_kinesis

        bin_dir = Path(sys.executable).parent
        env = dict(os.environ, PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable)
        settings = [
            arg
            for key, value in {"spark.ui.enabled": "false", **(confs or {})}.items()
            for arg in ("--conf", f"{key}={value}")
        ]
        self.log = open(log, "w")
        self.process = subprocess.Popen(
            [
                str(bin_dir / "spark-submit"),
                "--master",
                master,
                *settings,
                "--jars",
                pyspark_kinesis.jar_path(),
                str(app),
                json.dumps(config),
            ],
            env=env,
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
        )
        self.rows, self.started, self.done = 0, False, False
        self.metrics = []  # the source metrics of the query's progress, as the app reports them
        threading.Thread(target=self._follow, daemon=True).start()

    def _follow(self):
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if line.startswith("ROWS"):
                self.rows, self.started = int(line.split()[1]), True
            elif line.startswith("METRICS"):
                self.metrics.append(json.loads(line.split(" ", 1)[1]))
            elif line.startswith("DONE"):
                self.done = True

    def running(self):
        if self.process.poll() is not None:
            raise AssertionError(f"the app stopped early; log in {self.log.name}")
        return True

    def close(self):
        if self.process.poll() is None:
            self.process.kill()
        self.log.close()
