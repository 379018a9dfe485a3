# SPDX-License-Identifier: Apache-2.0
"""Only here to keep stale jars out of the wheel; all metadata is in pyproject.toml."""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildPyWithFreshJars(build_py):
    """Copy ``pyspark_kinesis/jars/`` afresh on every build.

    ``pip wheel python/`` builds in ``python/build/``, and setuptools never deletes files
    there: without this, a jar from an earlier build (another version, or a dummy) would go
    into every later wheel.
    """

    def run(self) -> None:
        shutil.rmtree(Path(self.build_lib) / "pyspark_kinesis" / "jars", ignore_errors=True)
        super().run()


setup(cmdclass={"build_py": BuildPyWithFreshJars})
