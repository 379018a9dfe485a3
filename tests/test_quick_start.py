# SPDX-License-Identifier: Apache-2.0
"""The Python quick start of README.md and docs/getting-started.md, run as written: only the
stream, the region, the endpoint and the paths are swapped for the local Kinesis's. Records
put into the stream must come out in the Parquet table it writes."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from streaming import make_records

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
