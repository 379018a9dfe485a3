# SPDX-License-Identifier: Apache-2.0
"""jvm_class() turns py4j's silent "unknown name is a package" into an actionable error.

No JVM here: py4j's JavaPackage and JavaClass objects are built directly, as the gateway
would return them for a missing and a present class.
"""

from types import SimpleNamespace

import pytest
from py4j.java_gateway import JavaClass, JavaPackage

import pyspark_kinesis
from pyspark_kinesis._jvm import maven_coordinates, maven_version

MANAGER = "io.github.sparkkinesis.AWSKinesisConsumerManager"


def fake_session(leaf):
    """A session whose JVM view resolves io.github.sparkkinesis.AWSKinesisConsumerManager to leaf."""
    package = SimpleNamespace(AWSKinesisConsumerManager=leaf)
    jvm = SimpleNamespace(io=SimpleNamespace(github=SimpleNamespace(sparkkinesis=package)))
    return SimpleNamespace(_jvm=jvm)


def test_present_class_is_returned():
    client = SimpleNamespace(gateway_property=SimpleNamespace(pool=None), converters=[])
    java_class = JavaClass(MANAGER, client)
    assert pyspark_kinesis.jvm_class(fake_session(java_class), MANAGER) is java_class


def test_missing_jar_error_says_how_to_add_it(tmp_path, monkeypatch):
    jar = tmp_path / "connector.jar"
    jar.touch()
    monkeypatch.setenv("PYSPARK_KINESIS_JAR", str(jar))
    session = fake_session(JavaPackage(MANAGER, None))
    with pytest.raises(RuntimeError) as error:
        pyspark_kinesis.jvm_class(session, MANAGER)
    message = str(error.value)
    assert "connector jar is not on the Spark driver's classpath" in message
    assert MANAGER in message
    assert "pyspark_kinesis.configure(SparkSession.builder)" in message
    assert f"--packages {maven_coordinates()}:{maven_version()}" in message
    assert f"--jars {jar.resolve()}" in message


def test_missing_jar_error_works_without_a_bundled_jar(monkeypatch, tmp_path):
    from pyspark_kinesis import _jar

    monkeypatch.setattr(_jar, "_JARS_DIR", tmp_path)
    monkeypatch.delenv("PYSPARK_KINESIS_JAR", raising=False)
    with pytest.raises(RuntimeError, match="--jars <path to"):
        pyspark_kinesis.jvm_class(fake_session(JavaPackage(MANAGER, None)), MANAGER)


def test_session_without_a_jvm_is_refused_clearly():
    with pytest.raises(RuntimeError, match="Spark Connect"):
        pyspark_kinesis.jvm_class(SimpleNamespace(), MANAGER)  # type: ignore[arg-type]


def test_maven_coordinates_name_the_artifact_of_the_running_spark_line():
    assert maven_coordinates("4.2.0") == "io.github.sparkkinesis:spark-sql-kinesis-4.2_2.13"
    assert maven_coordinates("4.0.5") == "io.github.sparkkinesis:spark-sql-kinesis-4.0_2.13"
    # Spark 4.3 runs the 4.2 jar.
    assert maven_coordinates("4.3.0") == "io.github.sparkkinesis:spark-sql-kinesis-4.2_2.13"


def test_maven_version_follows_the_package_version():
    assert maven_version("0.1.0.dev0") == "0.1.0-SNAPSHOT"
    assert maven_version("1.2.3") == "1.2.3"


def test_package_version_matches_the_jar_version_in_the_sbt_build():
    from pathlib import Path

    versions = Path(__file__).resolve().parents[2] / "project" / "Versions.scala"
    if not versions.is_file():
        pytest.skip("not in a full source tree")
    assert f'val project = "{maven_version(pyspark_kinesis.__version__)}"' in versions.read_text()
