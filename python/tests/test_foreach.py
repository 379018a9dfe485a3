# SPDX-License-Identifier: Apache-2.0
"""foreach_kinesis() checks its arguments before it reaches the JVM, and says why a Spark
Connect DataFrame cannot take the JVM writer. No JVM here; tests/test_realtime_pipeline.py
runs it end to end."""

from types import SimpleNamespace

import pytest

from pyspark_kinesis import KinesisSinkOptions, foreach_kinesis


def test_options_of_another_type_are_refused_naming_what_is_allowed():
    with pytest.raises(TypeError, match="KinesisSinkOptions or a mapping"):
        foreach_kinesis(SimpleNamespace(), ["streamName", "out"])  # type: ignore[arg-type]


def test_option_values_must_be_strings():
    with pytest.raises(TypeError, match="'maxInFlightPuts': int"):
        foreach_kinesis(SimpleNamespace(), {"maxInFlightPuts": 8})  # type: ignore[arg-type, dict-item]


def test_a_dataframe_without_py4j_is_refused_naming_the_way_under_connect():
    connect_like = SimpleNamespace(sparkSession=SimpleNamespace())
    with pytest.raises(RuntimeError) as error:
        foreach_kinesis(connect_like, KinesisSinkOptions().stream_name("out"))  # type: ignore[arg-type]
    message = str(error.value)
    assert "classic SparkSession" in message
    assert "Spark Connect's foreach takes Python writers only" in message
    assert 'format("kinesis")' in message
