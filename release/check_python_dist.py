# SPDX-License-Identifier: Apache-2.0
"""Checks the release's wheel and sdist (make release) as PyPI would take them, offline:
`twine check --strict` (metadata, a readme that renders), classifiers PyPI knows, the license
expression and license files, one connector jar of this version per Spark line in the wheel,
and each file under PyPI's default size limit.

    python release/check_python_dist.py <directory> <version> <jar name>...

Prints each file's size and every problem found; exits 1 when there is one.
"""

import argparse
import subprocess
import sys
import tarfile
import zipfile
from email.parser import Parser
from pathlib import Path

from trove_classifiers import classifiers as known_classifiers

# PyPI's default per-file limit (a project can ask for more, but should not need to).
PYPI_FILE_LIMIT = 100 * 1000 * 1000
LICENSE_FILES = ("LICENSE", "NOTICE")


def wheel_problems(wheel, version, jars):
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        info = f"pyspark_kinesis-{version}.dist-info"
        metadata = Parser().parsestr(archive.read(f"{info}/METADATA").decode())
    problems = metadata_problems(wheel.name, metadata, version)
    problems += [
        f"{wheel.name} lacks {info}/licenses/{name}" for name in LICENSE_FILES if f"{info}/licenses/{name}" not in names
    ]
    carried = sorted(Path(n).name for n in names if n.startswith("pyspark_kinesis/jars/") and n.endswith(".jar"))
    if carried != sorted(jars):
        problems.append(f"{wheel.name} carries jars {carried}, not {sorted(jars)}")
    return problems


def sdist_problems(sdist, version):
    top = f"pyspark_kinesis-{version}"
    with tarfile.open(sdist) as archive:
        names = archive.getnames()
        metadata = Parser().parsestr(archive.extractfile(f"{top}/PKG-INFO").read().decode())
    problems = metadata_problems(sdist.name, metadata, version)
    problems += [f"{sdist.name} lacks {top}/{name}" for name in LICENSE_FILES if f"{top}/{name}" not in names]
    return problems


def metadata_problems(name, metadata, version):
    problems = []
    if metadata["Version"] != version:
        problems.append(f"{name}: Version is {metadata['Version']}, not {version}")
    if metadata["License-Expression"] != "Apache-2.0":
        problems.append(f"{name}: License-Expression is {metadata['License-Expression']!r}, not 'Apache-2.0'")
    problems += [
        f"{name}: unknown classifier {c!r}" for c in metadata.get_all("Classifier", []) if c not in known_classifiers
    ]
    if not metadata.get_all("Project-URL"):
        problems.append(f"{name}: no Project-URL")
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", type=Path, help="where the wheel and the sdist are")
    parser.add_argument("version", help="the package version, e.g. 1.0.0")
    parser.add_argument("jars", nargs="+", help="the jar file names the wheel must carry")
    args = parser.parse_args(argv)
    wheel = args.directory / f"pyspark_kinesis-{args.version}-py3-none-any.whl"
    sdist = args.directory / f"pyspark_kinesis-{args.version}.tar.gz"
    missing = [f"{path} is missing" for path in (wheel, sdist) if not path.is_file()]
    problems = missing or wheel_problems(wheel, args.version, args.jars) + sdist_problems(sdist, args.version)
    for path in (wheel, sdist):
        if path.is_file():
            size = path.stat().st_size
            print(f"{path.name}: {size / 1e6:.1f} MB (PyPI's default limit: {PYPI_FILE_LIMIT / 1e6:.0f} MB)")
            if size > PYPI_FILE_LIMIT:
                problems.append(f"{path.name} is over PyPI's default file size limit")
    if not missing:
        twine = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", str(wheel), str(sdist)])
        if twine.returncode != 0:
            problems.append("twine check --strict failed (above)")
    for problem in problems:
        print(f"  - {problem}")
    print("python distributions: " + ("ok" if not problems else f"{len(problems)} problem(s)"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
