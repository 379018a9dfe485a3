# SPDX-License-Identifier: Apache-2.0
"""``python -m pyspark_kinesis offsets show|import|at-timestamp``: a query's progress, and carrying
a qubole or awslabs query's progress over (docs/migrating.md).

The commands run the connector jar's own ``io.github.sparkkinesis.tools.OffsetsTool`` in a JVM of
their own (the ``java`` of ``JAVA_HOME``, as pyspark finds it), with the jar this package carries
and the pyspark's Spark and Hadoop jars: the rules for reading checkpoints (this connector's
offset JSON, the other connectors' formats) exist once, in the jar, and checkpoints on HDFS or S3
read through Hadoop as Spark reads them. No Spark session starts. Credentials for ``show
--region`` come from the AWS default chain; the command takes none on its command line.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import IO, List, Sequence

MAIN_CLASS = "io.github.sparkkinesis.tools.OffsetsTool"

EXIT_FAILED = 1


def java_executable() -> str:
    """``$JAVA_HOME/bin/java``, else the ``java`` on the PATH (where pyspark looks too)."""
    home = os.environ.get("JAVA_HOME")
    if home:
        java = Path(home, "bin", "java")
        if not java.is_file():
            raise FileNotFoundError(f"JAVA_HOME is {home!r}, which has no bin/java: point it at a Java 17 or 21")
        return str(java)
    found = shutil.which("java")
    if not found:
        raise FileNotFoundError("no Java found: install Java 17 or 21 (as Spark needs), or set JAVA_HOME")
    return found


def spark_jars() -> Path:
    """The Spark (and Hadoop) jars of ``$SPARK_HOME``, else of the installed pyspark."""
    homes = [os.environ.get("SPARK_HOME")]
    import pyspark

    homes.append(str(Path(pyspark.__file__).resolve().parent))
    for home in filter(None, homes):
        jars = Path(home, "jars")
        if jars.is_dir():
            return jars
    raise FileNotFoundError("no Spark jars found in $SPARK_HOME/jars or in the pyspark package")


def command(args: Sequence[str]) -> List[str]:
    """The java command line that runs ``offsets`` with ``args``."""
    from pyspark_kinesis._jar import jar_path

    classpath = os.pathsep.join([jar_path(), str(spark_jars() / "*")])
    # Hadoop and Spark log through log4j: only errors, so the output is the tool's own.
    return [java_executable(), "-Dlog4j2.level=ERROR", "-cp", classpath, MAIN_CLASS, *args]


def run(args: Sequence[str], out: IO[str], err: IO[str]) -> int:
    """Runs the tool; its output goes to ``out`` and ``err``. Returns its exit code (0 done,
    1 failed, 2 bad usage), or 1 when no JVM could run it (the message says why)."""
    try:
        argv = command(args)
    except (FileNotFoundError, RuntimeError) as e:
        print(f"error: {e}", file=err)
        return EXIT_FAILED
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    out.write(done.stdout)
    err.write(done.stderr)
    return done.returncode
