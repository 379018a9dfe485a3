# SPDX-License-Identifier: Apache-2.0
"""The benchmark Kinesis (benchmarks/, a JVM process serving from memory) and CPU time of a
process from /proc, for benchmarks/bench.py."""

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH_JAR = ROOT / "benchmarks" / "target" / "scala-2.13" / "kinesis-bench.jar"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")

# The endpoint accepts any signature; the SDK only needs credentials to sign with.
CREDENTIALS = {"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench", "AWS_REGION": "us-east-1"}


def stat_cpu_seconds(stat):
    """User + system CPU seconds in the text of a /proc stat file (of a process or of one thread)."""
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def cpu_seconds(pid):
    """User + system CPU seconds of a process so far (all its threads)."""
    return stat_cpu_seconds(Path(f"/proc/{pid}/stat").read_text())


def rss_bytes(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


class BenchKinesis:
    """`with BenchKinesis(["--stream", "s:8:1000:1024"]) as k:` starts the endpoint on a free
    loopback port (k.endpoint) and stops it at the end; k.pid for its CPU time."""

    def __init__(self, args, threads=1):
        self.args, self.threads = list(args), threads

    def __enter__(self):
        if not BENCH_JAR.exists():
            raise FileNotFoundError(f"{BENCH_JAR} is missing: make bench-jar builds it")
        self._dir = tempfile.TemporaryDirectory(prefix="bench-kinesis-")
        port_file = Path(self._dir.name) / "port"
        self._log = open(Path(self._dir.name) / "log", "w")
        self.process = subprocess.Popen(
            [
                "java",
                "-Xms512m",
                "-Xmx8g",
                "-XX:+UseParallelGC",
                "-cp",
                str(BENCH_JAR),
                "io.github.sparkkinesis.bench.BenchKinesis",
                "--port-file",
                str(port_file),
                "--threads",
                str(self.threads),
            ]
            + self.args,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.time() + 60
        while not port_file.exists() or not port_file.read_text():
            if self.process.poll() is not None or time.time() > deadline:
                self.__exit__(None, None, None)
                raise RuntimeError(f"the benchmark Kinesis did not start: {(Path(self._dir.name) / 'log').read_text()}")
            time.sleep(0.1)
        self.endpoint = f"http://127.0.0.1:{port_file.read_text()}"
        self.pid = self.process.pid
        return self

    def __exit__(self, *exc):
        died = self.process.poll()
        if died is not None and exc[0] is not None:  # say why the endpoint went away mid-row
            sys.stderr.write(
                f"the benchmark Kinesis exited ({died}):\n{(Path(self._dir.name) / 'log').read_text()[-3000:]}\n"
            )
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._log.close()
        self._dir.cleanup()


def bare_sdk_reader(endpoint, stream, records, mode, seconds=300):
    """The plain SDK reading `records` records in its own JVM (benchmarks/BareSdkReader): a dict
    with records, bytes, seconds, cpu_seconds."""
    import json

    out = subprocess.run(
        [
            "java",
            "-Xmx2g",
            "-cp",
            str(BENCH_JAR),
            "io.github.sparkkinesis.bench.BareSdkReader",
            "--endpoint",
            endpoint,
            "--stream",
            stream,
            "--records",
            str(records),
            "--mode",
            mode,
            "--seconds",
            str(seconds),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, **CREDENTIALS},
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])
