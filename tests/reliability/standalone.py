# SPDX-License-Identifier: Apache-2.0
"""A Spark standalone cluster on this machine whose workers have hosts of their own (127.0.0.1,
127.0.0.2, ...: every 127.x address is loopback on Linux). local-cluster puts every executor on
one host, where Spark never runs a speculative copy of a task (it runs one only on a host
without an attempt of that task), so the speculation tests need this. Started with the
spark-class script of the installed pyspark; its processes are stopped on exit."""

import os
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from kinesis_local import free_ports

MASTER_CLASS = "org.apache.spark.deploy.master.Master"
WORKER_CLASS = "org.apache.spark.deploy.worker.Worker"


@contextmanager
def standalone_cluster(run_dir, hosts=("127.0.0.1", "127.0.0.2"), cores=1, memory="1g", timeout=120):
    """Yields the master URL of a cluster with one worker of `cores` cores per host in `hosts`."""
    spark_class = str(Path(sys.executable).parent / "spark-class")
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    master_port, master_ui = free_ports(2)
    master_url = f"spark://127.0.0.1:{master_port}"
    env = dict(
        os.environ, SPARK_LOG_DIR=str(run_dir), SPARK_WORKER_DIR=str(run_dir / "work"), PYSPARK_PYTHON=sys.executable
    )
    processes = []

    def start(name, *args):
        log = open(run_dir / f"{name}.log", "w")
        processes.append((subprocess.Popen([spark_class, *args], env=env, stdout=log, stderr=subprocess.STDOUT), log))
        return run_dir / f"{name}.log"

    try:
        master_log = start(
            "master", MASTER_CLASS, "--host", "127.0.0.1", "--port", str(master_port), "--webui-port", str(master_ui)
        )
        for i, host in enumerate(hosts):
            (ui,) = free_ports(1)
            start(
                f"worker-{i}",
                WORKER_CLASS,
                "--host",
                host,
                "--cores",
                str(cores),
                "--memory",
                memory,
                "--webui-port",
                str(ui),
                master_url,
            )
        deadline = time.monotonic() + timeout
        while master_log.read_text().count("Registering worker") < len(hosts):
            for process, log in processes:
                assert process.poll() is None, f"a cluster process stopped; see {log.name}"
            assert time.monotonic() < deadline, f"workers did not register within {timeout}s; see {run_dir}"
            time.sleep(0.5)
        yield master_url
    finally:
        for process, log in reversed(processes):
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(30)
                except subprocess.TimeoutExpired:
                    process.kill()
            log.close()
