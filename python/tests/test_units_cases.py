# SPDX-License-Identifier: Apache-2.0
"""The Python builders read duration and size strings as ``data/unit_cases.json`` says; the Scala
``UnitCasesSuite`` checks the JVM reads each string accepted there to the same value. No JVM here."""

import json
from datetime import timedelta
from pathlib import Path

import pytest

from pyspark_kinesis._units import parse_byte_size, parse_duration

CASES = json.loads((Path(__file__).parent / "data" / "unit_cases.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("text,ms", CASES["durationsMs"].items())
def test_durations_get_the_verdict_the_jvm_is_checked_against(text, ms):
    if ms is None:
        with pytest.raises(ValueError, match="opt must be a duration"):
            parse_duration("opt", text)
    else:
        # The JVM reads whole milliseconds, rounding microseconds down.
        assert parse_duration("opt", text)[1] // timedelta(milliseconds=1) == ms


@pytest.mark.parametrize("text,size", CASES["sizesBytes"].items())
def test_sizes_get_the_verdict_the_jvm_is_checked_against(text, size):
    if size is None:
        with pytest.raises(ValueError, match="opt must be a byte size"):
            parse_byte_size("opt", text)
    else:
        assert parse_byte_size("opt", text)[1] == size
