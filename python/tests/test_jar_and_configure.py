# SPDX-License-Identifier: Apache-2.0
"""jar_path() finds the bundled (or overriding) jar; configure() puts it on spark.jars."""

from pathlib import Path

import pyspark
import pytest
from pyspark.sql import SparkSession

import pyspark_kinesis
from pyspark_kinesis import _jar


@pytest.fixture
def jars_dir(tmp_path, monkeypatch):
    """An empty jars/ directory standing in for the package's, and no override set."""
    directory = tmp_path / "jars"
    directory.mkdir()
    monkeypatch.setattr(_jar, "_JARS_DIR", directory)
    monkeypatch.delenv("PYSPARK_KINESIS_JAR", raising=False)
    return directory


def put_jar(jars_dir, line, scala):
    jar = jars_dir / f"spark-sql-kinesis-{line}_{scala}-assembly-0.1.0-SNAPSHOT.jar"
    jar.write_bytes(b"PK\x05\x06" + b"\0" * 18)
    return jar


@pytest.fixture
def bundled_jar(jars_dir):
    """The jar of the running pyspark's line (and Scala), as the wheel carries it."""
    line = _jar.spark_line(pyspark.__version__)
    return put_jar(jars_dir, _jar.jar_line(line), _jar._scala_of_spark(line))


@pytest.fixture
def every_line(jars_dir):
    """A jars/ directory like the wheel's: one jar per Spark line and Scala version."""
    lines = [("3.5", "2.12"), ("3.5", "2.13"), ("4.0", "2.13"), ("4.1", "2.13"), ("4.2", "2.13")]
    return {key: put_jar(jars_dir, *key) for key in lines}


def test_jar_path_returns_the_absolute_path_of_the_bundled_jar(bundled_jar):
    path = pyspark_kinesis.jar_path()
    assert path == str(bundled_jar.resolve())
    assert Path(path).is_absolute()


def test_missing_jar_says_how_to_build_it(jars_dir):
    with pytest.raises(FileNotFoundError) as error:
        pyspark_kinesis.jar_path()
    message = str(error.value)
    assert str(jars_dir) in message
    assert "make wheel" in message
    assert "PYSPARK_KINESIS_JAR" in message


@pytest.mark.parametrize(
    "version, scala, line",
    [
        ("3.5.9", "2.12", "3.5"),
        ("3.5.1", "2.13", "3.5"),
        ("4.0.5", "2.13", "4.0"),
        ("4.1.4", "2.13", "4.1"),
        ("4.2.0", "2.13", "4.2"),
        ("4.2.1.dev0", "2.13", "4.2"),
        ("4.3.0", "2.13", "4.2"),
    ],
)
def test_the_jar_of_the_running_spark_line_and_scala_is_picked(every_line, version, scala, line):
    assert pyspark_kinesis.jar_path(version, scala) == str(every_line[(line, scala)].resolve())


def test_the_scala_version_comes_from_the_spark_installation(every_line, tmp_path, monkeypatch):
    spark_home = tmp_path / "spark-3.5.9-bin-hadoop3-scala2.13"
    (spark_home / "jars").mkdir(parents=True)
    (spark_home / "jars" / "scala-library-2.13.8.jar").touch()
    monkeypatch.setenv("SPARK_HOME", str(spark_home))
    assert pyspark_kinesis.jar_path("3.5.9") == str(every_line[("3.5", "2.13")].resolve())


@pytest.mark.parametrize("version", ["3.4.4", "4.4.0", "5.0.0"])
def test_an_unsupported_spark_is_refused_naming_the_supported_lines(every_line, version):
    with pytest.raises(RuntimeError) as error:
        pyspark_kinesis.jar_path(version)
    message = str(error.value)
    assert f"pyspark) {version}" in message
    assert "3.5.x, 4.0.x, 4.1.x, 4.2.x, 4.3.x" in message
    assert "PYSPARK_KINESIS_JAR" in message


def test_a_wheel_without_the_jar_of_the_running_line_names_the_jars_it_has(jars_dir):
    put_jar(jars_dir, "4.2", "2.13")
    with pytest.raises(
        FileNotFoundError,
        match=r"no connector jar for Spark 3.5 with Scala 2.12 "
        r"\(pyspark 3.5.9\); it carries jars for Spark 4.2 \(Scala 2.13\)",
    ):
        pyspark_kinesis.jar_path("3.5.9", "2.12")


def test_a_jar_not_named_for_a_spark_line_is_not_picked(jars_dir):
    (jars_dir / "other.jar").touch()
    with pytest.raises(FileNotFoundError, match="not in"):
        pyspark_kinesis.jar_path("4.2.0")


def test_env_var_overrides_the_bundled_jar(bundled_jar, tmp_path, monkeypatch):
    dev_jar = tmp_path / "dev.jar"
    dev_jar.touch()
    monkeypatch.setenv("PYSPARK_KINESIS_JAR", str(dev_jar))
    assert pyspark_kinesis.jar_path() == str(dev_jar.resolve())


def test_env_var_relative_path_becomes_absolute(jars_dir, tmp_path, monkeypatch):
    (tmp_path / "dev.jar").touch()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYSPARK_KINESIS_JAR", "dev.jar")
    assert pyspark_kinesis.jar_path() == str((tmp_path / "dev.jar").resolve())


def test_env_var_naming_a_missing_file_is_an_error(bundled_jar, tmp_path, monkeypatch):
    monkeypatch.setenv("PYSPARK_KINESIS_JAR", str(tmp_path / "nope.jar"))
    with pytest.raises(FileNotFoundError, match="PYSPARK_KINESIS_JAR.*nope.jar"):
        pyspark_kinesis.jar_path()


def spark_jars(builder):
    return builder._options.get("spark.jars")


def test_configure_adds_the_jar_to_spark_jars(bundled_jar):
    builder = SparkSession.builder.appName("t")
    assert pyspark_kinesis.configure(builder) is builder
    assert spark_jars(builder) == str(bundled_jar.resolve())


def test_configure_keeps_an_existing_spark_jars_value(bundled_jar):
    builder = SparkSession.builder.config("spark.jars", "/opt/a.jar,/opt/b.jar")
    pyspark_kinesis.configure(builder)
    assert spark_jars(builder) == f"/opt/a.jar,/opt/b.jar,{bundled_jar.resolve()}"


def test_configure_appends_extra_jars(bundled_jar):
    builder = pyspark_kinesis.configure(SparkSession.builder, extra_jars=["/opt/extra.jar"])
    assert spark_jars(builder) == f"{bundled_jar.resolve()},/opt/extra.jar"


def test_configure_twice_does_not_list_the_jar_twice(bundled_jar):
    builder = pyspark_kinesis.configure(pyspark_kinesis.configure(SparkSession.builder))
    assert spark_jars(builder) == str(bundled_jar.resolve())


def test_configure_adds_the_sql_extensions(bundled_jar):
    builder = pyspark_kinesis.configure(SparkSession.builder)
    assert builder._options.get("spark.sql.extensions") == "io.github.sparkkinesis.sql.KinesisSqlExtensions"


def test_configure_appends_to_the_users_sql_extensions_once(bundled_jar):
    builder = SparkSession.builder.config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
    pyspark_kinesis.configure(pyspark_kinesis.configure(builder))
    assert builder._options.get("spark.sql.extensions") == (
        "io.delta.sql.DeltaSparkSessionExtension,io.github.sparkkinesis.sql.KinesisSqlExtensions"
    )


def test_configure_uses_the_env_var_jar(jars_dir, tmp_path, monkeypatch):
    dev_jar = tmp_path / "dev.jar"
    dev_jar.touch()
    monkeypatch.setenv("PYSPARK_KINESIS_JAR", str(dev_jar))
    assert spark_jars(pyspark_kinesis.configure(SparkSession.builder)) == str(dev_jar.resolve())


def test_configure_without_a_jar_fails_before_the_session_starts(jars_dir):
    with pytest.raises(FileNotFoundError, match="make wheel"):
        pyspark_kinesis.configure(SparkSession.builder)


@pytest.mark.parametrize("not_a_builder", [None, "builder", SparkSession, {"spark.jars": "x"}])
def test_configure_rejects_a_non_builder_naming_its_type(bundled_jar, not_a_builder):
    with pytest.raises(TypeError, match=rf"got {type(not_a_builder).__name__}$"):
        pyspark_kinesis.configure(not_a_builder)


@pytest.mark.parametrize("extra_jars", ["/opt/a.jar", [1], 3])
def test_configure_rejects_extra_jars_that_are_not_a_list_of_paths(bundled_jar, extra_jars):
    with pytest.raises(TypeError, match="extra_jars"):
        pyspark_kinesis.configure(SparkSession.builder, extra_jars=extra_jars)
