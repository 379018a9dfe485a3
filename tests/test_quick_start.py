# SPDX-License-Identifier: Apache-2.0
"""The Python quick start of README.md and docs/getting-started.md, run as written: only the
stream, the region, the endpoint and the paths are swapped for the local Kinesis's. Records
put into the stream must come out in the Parquet table it writes. docs/operations.md's listener
runs as written too, and must publish a Kinesis query's lag."""

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

from streaming import kinesis_reader, make_records, run_available_now

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", ROOT / "docs/getting-started.md"]


def quick_start(page):
    """The first Python block under "## Quick start: Python"."""
    text = page.read_text()
    section = text[text.index("## Quick start: Python\n") :]
    found = re.search(r"```python\n(.*?)```", section, re.S)
    assert found, f"{page.name}: no Python block under 'Quick start: Python'"
    return found.group(1)


def swap(code, old, new):
    assert old in code, f"the quick start no longer contains {old!r}: update tests/test_quick_start.py with it"
    return code.replace(old, new)


def test_the_quick_starts_of_the_readme_and_getting_started_are_the_same():
    first, second = (quick_start(page) for page in PAGES)
    assert first == second, "README.md and docs/getting-started.md show different Python quick starts"


def test_the_python_quick_start_reads_the_stream_into_parquet(kinesis, tmp_path):
    stream = kinesis.create_stream(shards=2)
    records = make_records(50, "quick")
    kinesis.put_records(stream, records)

    code = quick_start(PAGES[0])
    code = swap(code, '.option("streamName", "watch-events")', f'.option("streamName", "{stream}")')
    code = swap(
        code,
        '.option("region", "us-east-1")',
        f'.option("region", "{kinesis.region}").option("endpoint", "{kinesis.endpoint}")',
    )
    code = swap(code, "/tmp/watch-events", str(tmp_path / "quick"))
    keys_file = tmp_path / "keys.json"
    code += (
        f"\nimport json\nrows = spark.read.parquet({str(tmp_path / 'quick/table')!r}).collect()\n"
        f"open({str(keys_file)!r}, 'w').write(json.dumps([r.partitionKey for r in rows]))\n"
    )
    script = tmp_path / "quick_start.py"
    script.write_text(code)

    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300, env=dict(os.environ)
    )
    assert done.returncode == 0, f"the quick start failed:\n{done.stderr[-4000:]}"
    assert "json" in done.stdout, f"the quick start's show() printed no table:\n{done.stdout}"
    keys = json.loads(keys_file.read_text())
    assert sorted(keys) == sorted(key for key, _ in records), "the table does not hold exactly the records put"


class _Streams:
    """spark.streams for the example: adds its listener and keeps it, to remove it after."""

    def __init__(self, spark):
        self._spark, self.added = spark, []

    def addListener(self, listener):  # noqa: N802 - Spark's name
        self.added.append(listener)
        self._spark.streams.addListener(listener)


def test_the_operations_listener_publishes_the_lag_of_a_kinesis_query(spark, kinesis, tmp_path):
    """docs/operations.md's Python listener, run as written with a `publish` that records."""
    page = (ROOT / "docs/operations.md").read_text()
    section = page[page.index("## A listener that publishes the metrics\n") :]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code, "docs/operations.md: no Python listener"
    published = []
    streams = _Streams(spark)
    exec(code.group(1), {"spark": SimpleNamespace(streams=streams), "publish": lambda *m: published.append(m)})
    try:
        stream = kinesis.create_stream(shards=1)
        kinesis.put_records(stream, make_records(10, "listened"))
        run_available_now(kinesis_reader(spark, kinesis, stream), tmp_path / "out", tmp_path / "chk")
        deadline = time.monotonic() + 30
        while not any(name == "maxMsBehindLatest" for _, name, _ in published):
            assert time.monotonic() < deadline, f"no maxMsBehindLatest published within 30 s: {published}"
            time.sleep(0.2)
    finally:
        for listener in streams.added:
            spark.streams.removeListener(listener)
