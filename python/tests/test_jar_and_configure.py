"""jar_path() finds the bundled (or overriding) jar; configure() puts it on spark.jars."""

from pathlib import Path

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


@pytest.fixture
def bundled_jar(jars_dir):
    jar = jars_dir / "spark-sql-kinesis-assembly_2.13-0.1.0-SNAPSHOT.jar"
    jar.write_bytes(b"PK\x05\x06" + b"\0" * 18)
    return jar


def test_jar_path_returns_the_absolute_path_of_the_bundled_jar(bundled_jar):
    path = pyspark_kinesis.jar_path()
    assert path == str(bundled_jar.resolve())
    assert Path(path).is_absolute()


def test_missing_jar_says_how_to_build_it(jars_dir):
    with pytest.raises(FileNotFoundError) as error:
        pyspark_kinesis.jar_path()
    message = str(error.value)
    assert str(jars_dir) in message
    assert "build/sbt connector/assembly" in message
    assert "PYSPARK_KINESIS_JAR" in message


def test_several_jars_are_an_error_naming_them(jars_dir):
    for name in ["a.jar", "b.jar"]:
        (jars_dir / name).touch()
    with pytest.raises(RuntimeError, match="a.jar, b.jar"):
        pyspark_kinesis.jar_path()


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


def test_configure_uses_the_env_var_jar(jars_dir, tmp_path, monkeypatch):
    dev_jar = tmp_path / "dev.jar"
    dev_jar.touch()
    monkeypatch.setenv("PYSPARK_KINESIS_JAR", str(dev_jar))
    assert spark_jars(pyspark_kinesis.configure(SparkSession.builder)) == str(dev_jar.resolve())


def test_configure_without_a_jar_fails_before_the_session_starts(jars_dir):
    with pytest.raises(FileNotFoundError, match="build/sbt connector/assembly"):
        pyspark_kinesis.configure(SparkSession.builder)


@pytest.mark.parametrize("not_a_builder", [None, "builder", SparkSession, {"spark.jars": "x"}])
def test_configure_rejects_a_non_builder_naming_its_type(bundled_jar, not_a_builder):
    with pytest.raises(TypeError, match=rf"got {type(not_a_builder).__name__}$"):
        pyspark_kinesis.configure(not_a_builder)


@pytest.mark.parametrize("extra_jars", ["/opt/a.jar", [1], 3])
def test_configure_rejects_extra_jars_that_are_not_a_list_of_paths(bundled_jar, extra_jars):
    with pytest.raises(TypeError, match="extra_jars"):
        pyspark_kinesis.configure(SparkSession.builder, extra_jars=extra_jars)
