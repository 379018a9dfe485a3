# SPDX-License-Identifier: Apache-2.0
"""Reaching the connector's JVM classes through py4j, with a clear error when the jar is missing.

Only the py4j utilities (such as the consumer manager) need this; reading and writing with
``format("kinesis")`` does not, and works through Spark Connect as well.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from pyspark_kinesis._version import __version__

if TYPE_CHECKING:
    from py4j.java_gateway import JavaClass
    from pyspark.sql import SparkSession


def maven_coordinates(pyspark_version: Optional[str] = None) -> str:
    """``io.github.sparkkinesis:spark-sql-kinesis-<line>_<scala>`` for the running pyspark."""
    from pyspark_kinesis._jar import _pyspark_version, _scala_of_spark, jar_line, spark_line

    line = spark_line(pyspark_version or _pyspark_version())
    return f"io.github.sparkkinesis:spark-sql-kinesis-{jar_line(line)}_{_scala_of_spark(line)}"


def maven_version(python_version: str = __version__) -> str:
    """The jar version matching a package version: ``0.1.0.dev0`` -> ``0.1.0-SNAPSHOT``."""
    release, dev, _ = python_version.partition(".dev")
    return f"{release}-SNAPSHOT" if dev else release


def missing_jar_message(class_name: str) -> str:
    """Say that the connector jar is not on the driver's classpath, and how to add it."""
    from pyspark_kinesis._jar import jar_path

    try:
        jar = jar_path()
    except (FileNotFoundError, RuntimeError):
        jar = "<path to spark-sql-kinesis-assembly jar>"
    return (
        f"The Kinesis connector jar is not on the Spark driver's classpath (the JVM has no "
        f"class {class_name}). Add it before the session starts, in one of these ways:\n"
        "  - from Python: spark = pyspark_kinesis.configure(SparkSession.builder).getOrCreate()\n"
        f"  - spark-submit or pyspark: --packages {maven_coordinates()}:{maven_version()}\n"
        f"  - a local jar: --jars {jar}\n"
        "A session that is already running does not pick up new jars: stop it first."
    )


def jvm_class(spark: SparkSession, name: str) -> JavaClass:
    """Return the py4j ``JavaClass`` for the fully qualified class ``name``.

    :raises RuntimeError: the class is not in the JVM (the connector jar is missing; the
        message says how to add it), or ``spark`` has no JVM (a Spark Connect session).
    """
    if not isinstance(name, str) or not name:
        raise TypeError(f"name must be a non-empty str, got {type(name).__name__}")
    jvm = getattr(spark, "_jvm", None)
    if jvm is None:
        raise RuntimeError(
            f"{name} is reached through py4j, which needs a classic SparkSession running a "
            f"local JVM; got a {type(spark).__module__}.{type(spark).__name__} without one "
            "(Spark Connect sessions have no py4j gateway)."
        )

    # Importing py4j only here keeps the rest of the package usable where py4j is absent
    # (the Spark Connect-only client).
    from py4j.java_gateway import JavaPackage

    found = jvm
    for part in name.split("."):
        found = getattr(found, part)
    # py4j resolves an unknown name to a JavaPackage rather than failing; calling it later
    # gives the puzzling "'JavaPackage' object is not callable".
    if isinstance(found, JavaPackage):
        raise RuntimeError(missing_jar_message(name))
    return found
