# SPDX-License-Identifier: Apache-2.0
"""make bench refuses what it cannot run before it runs anything, so that no row's results page is
replaced by a failure: a missing pyspark_kinesis package, a --jar that is not label=path of a jar."""

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench.py"


def bench(tmp_path, *args, without_package=False):
    """Runs bench.py's main with `args` (and, if asked, with pyspark_kinesis not importable)."""
    hide = "sys.modules['pyspark_kinesis'] = None; " if without_package else ""
    code = (
        f"import runpy, sys; {hide}"
        f"sys.argv = ['bench.py', *{list(args)!r}, '--results-dir', {str(tmp_path / 'results')!r}]; "
        f"runpy.run_path({str(BENCH)!r}, run_name='__main__')"
    )
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_a_run_without_the_package_says_to_build_the_wheel_and_writes_no_results(tmp_path):
    jar = tmp_path / "now.jar"
    jar.write_bytes(b"")
    done = bench(tmp_path, "--rows", "idle", "--jar", f"now={jar}", without_package=True)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "pyspark_kinesis package is not installed: run make wheel" in done.stderr
    assert not (tmp_path / "results").exists()


def test_a_jar_that_is_not_label_and_path_of_a_file_is_refused_by_name(tmp_path):
    for jar in ["now.jar", f"now={tmp_path / 'missing.jar'}", "=x.jar"]:
        done = bench(tmp_path, "--rows", "idle", "--jar", jar)
        assert done.returncode == 2, done.stdout + done.stderr
        assert f"--jar {jar}: expected label=path of a connector jar that exists" in done.stderr
    assert not (tmp_path / "results").exists()
