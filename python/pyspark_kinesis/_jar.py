# SPDX-License-Identifier: Apache-2.0
"""The connector jar this package carries, and adding it to a Spark session."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from pyspark.sql import SparkSession

JAR_ENV_VAR = "PYSPARK_KINESIS_JAR"
# The session extension that gives SQL the read_kinesis table-valued function.
SQL_EXTENSIONS = "io.github.sparkkinesis.sql.KinesisSqlExtensions"
"""Environment variable naming a connector jar to use instead of the bundled one."""

# The wheel build copies the assembly jar here (see the project Makefile).
_JARS_DIR = Path(__file__).resolve().parent / "jars"

SUPPORTED_SPARK_LINES = ("3.5", "4.0", "4.1", "4.2", "4.3")
"""The Spark lines (major.minor) the package runs on (see :func:`jar_line`)."""

# Spark 4.3 runs the Spark 4.2 jar: Spark 4.3's own artifacts are not published to build
# against yet, and the 4.2 jar passes the end-to-end tests on pyspark 4.3 (make test-release).
_JAR_LINE_OF = {"4.3": "4.2"}

# Each jar is named for its Spark line and Scala version, as the sbt build names it:
# spark-sql-kinesis-<line>_<scala>-assembly-<version>.jar
_JAR_NAME = re.compile(r"spark-sql-kinesis-(\d+\.\d+)_(2\.1[23])-assembly-.+\.jar")

_HOW_TO_BUILD = (
    "Build it with `make wheel` in the project (or `build/sbt connector/assembly` for Spark "
    "4.2 and copy connector/target/scala-2.13/spark-sql-kinesis-4.2_2.13-assembly-<version>.jar "
    f"into {{jars_dir}}), or set {JAR_ENV_VAR} to the path of a connector jar."
)


def spark_line(version: str) -> str:
    """``"3.5.9"`` -> ``"3.5"``; the line a Spark (or pyspark) version belongs to."""
    parts = version.split(".")
    if len(parts) < 2 or not parts[0].isdigit() or not parts[1].isdigit():
        raise ValueError(f"not a Spark version: {version!r}")
    return f"{parts[0]}.{parts[1]}"


def jar_line(line: str) -> str:
    """The Spark line whose connector jar serves Spark ``line``: ``"4.3"`` -> ``"4.2"``,
    every other supported line its own."""
    return _JAR_LINE_OF.get(line, line)


def _pyspark_version() -> str:
    import pyspark

    return str(pyspark.__version__)


def _scala_of_spark(line: str) -> str:
    """The Scala version of the Spark this Python runs: from the scala-library jar in
    ``$SPARK_HOME/jars`` or in the pip-installed pyspark; by default the one each line's
    pip package is built with (2.12 for 3.5, 2.13 from 4.0)."""
    homes = [os.environ.get("SPARK_HOME")]
    try:
        import pyspark

        homes.append(str(Path(pyspark.__file__).resolve().parent))
    except ImportError:  # pragma: no cover - pyspark is a dependency
        pass
    for home in filter(None, homes):
        for jar in sorted(Path(home, "jars").glob("scala-library-2.1*.jar")):
            return jar.name[len("scala-library-") :][:4]
    return "2.12" if line == "3.5" else "2.13"


def bundled_jars() -> Dict[Tuple[str, str], Path]:
    """The jars the package carries, by (Spark line, Scala version)."""
    found: Dict[Tuple[str, str], Path] = {}
    for jar in sorted(_JARS_DIR.glob("*.jar")):
        match = _JAR_NAME.fullmatch(jar.name)
        if match:
            found[(match.group(1), match.group(2))] = jar
    return found


def jar_path(pyspark_version: Optional[str] = None, scala_version: Optional[str] = None) -> str:
    """Return the absolute path of the connector assembly jar for the running Spark.

    That is the path in ``$PYSPARK_KINESIS_JAR`` when it is set (for working on the connector
    without rebuilding the wheel), else the jar in the package's ``jars/`` directory built for
    the Spark line of ``pyspark_version`` (default: the installed ``pyspark.__version__``) and
    for ``scala_version`` (default: the Scala of that Spark, see docs/installing.md).

    :raises FileNotFoundError: the jar is missing; the message says how to build it.
    :raises RuntimeError: the package has no jar for that Spark line; the message names the
        lines it supports.
    """
    override = os.environ.get(JAR_ENV_VAR)
    if override:
        path = Path(override).expanduser()
        if not path.is_file():
            raise FileNotFoundError(
                f"{JAR_ENV_VAR} is set to {override!r}, which is not a file. Point it at the "
                "connector assembly jar, or unset it to use the jar bundled in the package."
            )
        return str(path.resolve())

    version = pyspark_version if pyspark_version is not None else _pyspark_version()
    line = spark_line(version)
    supported = ", ".join(f"{v}.x" for v in SUPPORTED_SPARK_LINES)
    if line not in SUPPORTED_SPARK_LINES:
        raise RuntimeError(
            f"pyspark-kinesis supports Spark {supported}; this is Spark (pyspark) {version}. "
            f"Install a supported pyspark, or set {JAR_ENV_VAR} to a connector jar built for it."
        )
    scala = scala_version or _scala_of_spark(line)
    jars = bundled_jars()
    if (jar_line(line), scala) in jars:
        return str(jars[(jar_line(line), scala)].resolve())
    if not jars:
        raise FileNotFoundError(
            f"The Kinesis connector jar is not in {_JARS_DIR}: this copy of pyspark-kinesis was "
            "installed from source without it. " + _HOW_TO_BUILD.format(jars_dir=_JARS_DIR)
        )
    carried = ", ".join(f"Spark {jar_line} (Scala {s})" for jar_line, s in sorted(jars))
    raise FileNotFoundError(
        f"This copy of pyspark-kinesis has no connector jar for Spark {line} with Scala {scala} "
        f"(pyspark {version}); it carries jars for {carried}. " + _HOW_TO_BUILD.format(jars_dir=_JARS_DIR)
    )


def configure(builder: SparkSession.Builder, extra_jars: Optional[Sequence[str]] = None) -> SparkSession.Builder:
    """Add the connector jar (and ``extra_jars``) to ``spark.jars`` of a session builder.

    One call makes a pip-installed package usable, like Delta Lake's
    ``configure_spark_with_delta_pip``::

        builder = SparkSession.builder.master("local[*]").appName("orders")
        spark = pyspark_kinesis.configure(builder).getOrCreate()

    It also adds the connector's SQL (the ``read_kinesis`` table-valued function) to
    ``spark.sql.extensions``: ``io.github.sparkkinesis.sql.KinesisSqlExtensions``.

    A ``spark.jars`` or ``spark.sql.extensions`` value already set on this builder is kept and
    the connector's are appended to it; one already listed is not added twice. The existing value is read from the
    builder's private ``_options`` dict (PySpark has no public getter), so a ``spark.jars``
    that comes from elsewhere (``spark-defaults.conf``, ``--jars``, ``PYSPARK_SUBMIT_ARGS``)
    is replaced when the session starts: add this package's jar there instead (see
    :func:`jar_path`).

    Like every ``spark.jars`` setting, this only takes effect if the builder starts a new
    JVM; with a Spark Connect server the jar must be on the server instead.

    :param builder: the ``SparkSession.Builder`` to configure (``SparkSession.builder...``).
    :param extra_jars: more jar paths or URLs to put on ``spark.jars``.
    :return: the same builder, for chaining.
    :raises TypeError: ``builder`` is not a ``SparkSession.Builder``, or ``extra_jars`` is
        not a sequence of str.
    :raises FileNotFoundError: the connector jar is missing (see :func:`jar_path`).
    """
    if not isinstance(builder, SparkSession.Builder):
        raise TypeError(
            "configure() needs a SparkSession.Builder, e.g. "
            "pyspark_kinesis.configure(SparkSession.builder.appName(...)), called before "
            f"getOrCreate(); got {type(builder).__name__}"
        )
    if extra_jars is None:
        extra: List[str] = []
    elif isinstance(extra_jars, str) or not isinstance(extra_jars, Sequence):
        raise TypeError(f"extra_jars must be a list of jar paths, got {type(extra_jars).__name__}")
    else:
        extra = list(extra_jars)
        for jar in extra:
            if not isinstance(jar, str):
                raise TypeError(f"extra_jars must hold str paths, got {type(jar).__name__}")

    builder = builder.config("spark.jars", ",".join(_appended(builder, "spark.jars", [jar_path(), *extra])))
    extensions = _appended(builder, "spark.sql.extensions", [SQL_EXTENSIONS])
    return builder.config("spark.sql.extensions", ",".join(extensions))


def _appended(builder: SparkSession.Builder, key: str, values: Sequence[str]) -> List[str]:
    """The comma-separated list ``key`` holds on ``builder``, with ``values`` it lacks appended."""
    existing = builder._options.get(key)
    listed = [] if existing is None else [v.strip() for v in str(existing).split(",") if v.strip()]
    return listed + [v for v in dict.fromkeys(values) if v not in listed]
