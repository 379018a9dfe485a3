"""The connector jar this package carries, and adding it to a Spark session."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import List, Optional

from pyspark.sql import SparkSession

JAR_ENV_VAR = "PYSPARK_KINESIS_JAR"
"""Environment variable naming a connector jar to use instead of the bundled one."""

# The wheel build copies the assembly jar here (see the project Makefile).
_JARS_DIR = Path(__file__).resolve().parent / "jars"

_HOW_TO_BUILD = (
    "Build it with `build/sbt connector/assembly` and copy "
    "connector/target/scala-2.13/spark-sql-kinesis-assembly_2.13-<version>.jar into {jars_dir}, "
    f"or set {JAR_ENV_VAR} to the path of a connector jar."
)


def jar_path() -> str:
    """Return the absolute path of the connector assembly jar.

    That is the path in ``$PYSPARK_KINESIS_JAR`` when it is set (for working on the connector
    without rebuilding the wheel), else the single ``*.jar`` in the package's ``jars/``
    directory, which a wheel built by the project's Makefile carries.

    :raises FileNotFoundError: the jar is missing; the message says how to build it.
    :raises RuntimeError: ``jars/`` holds more than one jar.
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

    jars = sorted(_JARS_DIR.glob("*.jar"))
    if not jars:
        raise FileNotFoundError(
            f"The Kinesis connector jar is not in {_JARS_DIR}: this copy of pyspark-kinesis was "
            "installed from source without it. " + _HOW_TO_BUILD.format(jars_dir=_JARS_DIR)
        )
    if len(jars) > 1:
        names = ", ".join(jar.name for jar in jars)
        raise RuntimeError(
            f"Expected exactly one connector jar in {_JARS_DIR}, found {len(jars)}: {names}. "
            f"Remove the stale ones, or set {JAR_ENV_VAR} to the one to use."
        )
    return str(jars[0].resolve())


def configure(
    builder: SparkSession.Builder, extra_jars: Optional[Sequence[str]] = None
) -> SparkSession.Builder:
    """Add the connector jar (and ``extra_jars``) to ``spark.jars`` of a session builder.

    One call makes a pip-installed package usable, like Delta Lake's
    ``configure_spark_with_delta_pip``::

        builder = SparkSession.builder.master("local[*]").appName("orders")
        spark = pyspark_kinesis.configure(builder).getOrCreate()

    A ``spark.jars`` value already set on this builder is kept and the jars are appended to
    it; a jar already listed is not added twice. The existing value is read from the
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
        raise TypeError(
            f"extra_jars must be a list of jar paths, got {type(extra_jars).__name__}"
        )
    else:
        extra = list(extra_jars)
        for jar in extra:
            if not isinstance(jar, str):
                raise TypeError(f"extra_jars must hold str paths, got {type(jar).__name__}")

    existing = builder._options.get("spark.jars")
    jars = [] if existing is None else [j.strip() for j in str(existing).split(",") if j.strip()]
    for jar in [jar_path(), *extra]:
        if jar not in jars:
            jars.append(jar)
    return builder.config("spark.jars", ",".join(jars))
