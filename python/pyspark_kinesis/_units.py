# SPDX-License-Identifier: Apache-2.0
"""Duration and byte-size strings in the forms the JVM side parses.

The connector reads these options the way Spark reads its own configuration
(``JavaUtils.timeStringAs`` / ``byteStringAs``): a whole number followed by a unit, case
insensitive. Checking the form here turns a typo into an error on the line that made it,
instead of one raised when the query is defined.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Tuple, Union

Duration = Union[str, timedelta]
"""A duration string such as ``"400ms"``, ``"10s"``, ``"2m"``, or a :class:`~datetime.timedelta`."""

ByteSize = Union[str, int]
"""A byte string such as ``"512kb"``, ``"10mb"``, ``"20gb"``, or a number of bytes."""

_MICROS_PER_UNIT = {
    "us": 1,
    "ms": 1_000,
    "s": 1_000_000,
    "m": 60_000_000,
    "min": 60_000_000,
    "h": 3_600_000_000,
    "d": 86_400_000_000,
}
_DURATION = re.compile(r"([0-9]+)(us|ms|s|m|min|h|d)")
DURATION_FORMS = "a whole number and a unit: us, ms, s, m (or min), h, d, e.g. '400ms', '10s', '2m'"

_BYTES_PER_UNIT = {
    "b": 1,
    "k": 1 << 10,
    "kb": 1 << 10,
    "m": 1 << 20,
    "mb": 1 << 20,
    "g": 1 << 30,
    "gb": 1 << 30,
    "t": 1 << 40,
    "tb": 1 << 40,
    "p": 1 << 50,
    "pb": 1 << 50,
}
_BYTE_SIZE = re.compile(r"([0-9]+)(b|kb?|mb?|gb?|tb?|pb?)")
BYTE_SIZE_FORMS = "a whole number and a unit: b, kb, mb, gb, tb, pb, e.g. '512kb', '10mb', '20gb'"


def parse_duration(option: str, value: Duration) -> Tuple[str, timedelta]:
    """Return ``value`` as the string sent to the JVM, and as a timedelta for range checks.

    A timedelta is sent in milliseconds (``timedelta(seconds=0.25)`` -> ``"250ms"``); one with
    a fraction of a millisecond is rejected rather than silently rounded.
    """
    if isinstance(value, timedelta):
        if value < timedelta(0):
            raise ValueError(f"{option} must not be negative, got {value!r}")
        millis, rest = divmod(value, timedelta(milliseconds=1))
        if rest:
            raise ValueError(f"{option} must be a whole number of milliseconds, got {value!r}")
        return f"{millis}ms", value
    if isinstance(value, str):
        text = value.strip().lower()
        match = _DURATION.fullmatch(text)
        if match is None:
            raise ValueError(f"{option} must be a duration, {DURATION_FORMS}; got {value!r}")
        number, unit = match.groups()
        return text, timedelta(microseconds=int(number) * _MICROS_PER_UNIT[unit])
    raise TypeError(f"{option} must be a str or datetime.timedelta, got {type(value).__name__}")


def parse_byte_size(option: str, value: ByteSize) -> Tuple[str, int]:
    """Return ``value`` as the string sent to the JVM, and its number of bytes (1 kb = 1024 b)."""
    if isinstance(value, bool):
        raise TypeError(f"{option} must be a str or int, got bool")
    if isinstance(value, int):
        if value < 0:
            raise ValueError(f"{option} must not be negative, got {value}")
        return f"{value}b", value
    if isinstance(value, str):
        text = value.strip().lower()
        match = _BYTE_SIZE.fullmatch(text)
        if match is None:
            raise ValueError(f"{option} must be a byte size, {BYTE_SIZE_FORMS}; got {value!r}")
        number, unit = match.groups()
        return text, int(number) * _BYTES_PER_UNIT[unit]
    raise TypeError(f"{option} must be a str or int, got {type(value).__name__}")
