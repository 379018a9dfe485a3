# SPDX-License-Identifier: Apache-2.0
"""The documented commands on a clean install: the wheel alone in a fresh virtual environment
(pip brings its declared dependencies, pyspark held at the version of the test run's own), then
each command's --help and real commands against the local Kinesis. The consumers commands need
the `consumers` extra; without it they say which install brings it."""

import json
import os
import subprocess
import venv
from pathlib import Path

import pyspark
import pytest

ROOT = Path(__file__).resolve().parent.parent
HELP = [
    [],
    ["consumers"],
    ["consumers", "list"],
    ["consumers", "register"],
    ["consumers", "deregister"],
    ["offsets"],
]


def wheel():
    found = sorted((ROOT / "python/dist").glob("pyspark_kinesis-*.whl"))
    if not found:
        pytest.fail("no python/dist/pyspark_kinesis-*.whl: build it with make wheel")
    return found[-1]


class CleanInstall:
    def __init__(self, home):
        self.home = home
        self.python = home / "bin" / "python"

    def pip(self, *args):
        done = subprocess.run(
            [str(self.python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *args],
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert done.returncode == 0, f"pip install {' '.join(args)} failed:\n{done.stderr[-3000:]}"

    def run(self, *args, env=None):
        # From the venv's own directory, so this checkout's python/ is not importable.
        return subprocess.run(
            [str(self.python), "-m", "pyspark_kinesis", *args],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=self.home,
            env=env,
        )


@pytest.fixture(scope="module")
def clean_install(tmp_path_factory):
    """One fresh virtual environment with only the wheel and what it declares."""
    home = tmp_path_factory.mktemp("clean-install") / "venv"
    venv.create(home, with_pip=True)
    installed = CleanInstall(home)
    # The run's own pyspark version: the one pip has at hand, and one the wheel's jar serves.
    constraints = home.parent / "constraints.txt"
    constraints.write_text(f"pyspark=={pyspark.__version__}\n")
    installed.pip("-c", str(constraints), str(wheel()))
    return installed


@pytest.mark.parametrize("words", HELP, ids=lambda w: " ".join(w) or "top")
def test_every_documented_command_has_help(clean_install, words):
    done = clean_install.run(*words, "--help")
    assert done.returncode == 0, f"{' '.join(words)} --help failed:\n{done.stderr}"
    assert "usage:" in done.stdout + done.stderr


def test_offsets_at_timestamp_reads_the_shards_of_a_stream(clean_install, kinesis):
    stream = kinesis.create_stream(shards=2)
    done = clean_install.run(
        "offsets",
        "at-timestamp",
        "2026-01-01T00:00:00Z",
        "--stream",
        stream,
        "--region",
        kinesis.region,
        "--endpoint",
        kinesis.endpoint,
        env=dict(os.environ),
    )
    assert done.returncode == 0, f"offsets at-timestamp failed:\n{done.stderr}"
    position = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(position["shards"][stream]) == 2, f"not one position per shard: {done.stdout}"


def test_the_consumers_commands_name_their_extra_then_work_with_it(clean_install, kinesis):
    stream = kinesis.create_stream(shards=1)
    where = ["--stream", stream, "--region", kinesis.region, "--endpoint-url", kinesis.endpoint]
    env = dict(os.environ)

    without = clean_install.run("consumers", "list", *where, env=env)
    assert without.returncode == 1, f"consumers list ran without boto3?\n{without.stdout}{without.stderr}"
    assert "pip install 'pyspark-kinesis[consumers]'" in without.stderr

    clean_install.pip("-c", str(clean_install.home.parent / "constraints.txt"), f"{wheel()}[consumers]")
    registered = clean_install.run("consumers", "register", *where, "--name", "clean_install", env=env)
    assert registered.returncode == 0, registered.stderr
    assert registered.stdout.startswith("arn:aws:kinesis:")
    listed = clean_install.run("consumers", "list", *where, env=env)
    assert listed.returncode == 0, listed.stderr
    assert "clean_install" in listed.stdout and f"1 consumers of stream {stream}." in listed.stdout
    gone = clean_install.run("consumers", "deregister", *where, "--name", "clean_install", env=env)
    assert gone.returncode == 0, gone.stderr
