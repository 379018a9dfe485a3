# SPDX-License-Identifier: Apache-2.0
"""The checks of the options builders, one per kind of option in the registry: each takes what a
user passed, raises ``TypeError`` naming the type it got or ``ValueError`` naming the option and
what is allowed (bounds from the registry), and returns the string the JVM reads."""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import timedelta
from typing import Any, List, Union

from pyspark_kinesis import _registry
from pyspark_kinesis._units import ByteSize, Duration, parse_byte_size, parse_duration

NameList = Union[str, Sequence[str]]
"""One name, a comma-separated string of names, or a sequence of names."""


def require_type(option: str, value: Any, expected: type, described: str) -> None:
    if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
        raise TypeError(f"{option} must be a {described}, got {type(value).__name__}")


def choice(option: str, value: Any, allowed: Sequence[str]) -> str:
    """One of `allowed`, matched case-insensitively, spelled as the registry spells it."""
    require_type(option, value, str, "str")
    found = next((a for a in allowed if a.lower() == value.strip().lower()), None)
    if found is None:
        shown = " or ".join(repr(a) for a in allowed)
        raise ValueError(f"{option} must be {shown}, got {value!r}")
    return found


def registry_choice(option: str, value: Any) -> str:
    """One of the option's choices in the registry."""
    return choice(option, value, _registry.option(option).allowed)


def non_empty_str(option: str, value: Any) -> str:
    require_type(option, value, str, "str")
    if not value.strip():
        raise ValueError(f"{option} must not be empty")
    return str(value)


def boolean(option: str, value: Any) -> str:
    require_type(option, value, bool, "bool")
    return "true" if value else "false"


def int_option(option: str, value: Any) -> str:
    """An int within the option's bounds in the registry, as the string sent to the JVM."""
    require_type(option, value, int, "int")
    facts = _registry.option(option)
    low = int(facts.min or 0)
    if facts.max is None:
        if value < low:
            raise ValueError(f"{option} must be an integer of at least {low}, got {value}")
    elif not low <= value <= int(facts.max):
        raise ValueError(f"{option} must be between {low} and {int(facts.max)}, got {value}")
    return str(int(value))


def decimal_option(option: str, value: Any) -> str:
    """A finite number above 0 and at most the option's maximum in the registry."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{option} must be a float, got {type(value).__name__}")
    number = float(value)
    high = float(_registry.option(option).max or math.inf)
    if not (math.isfinite(number) and 0.0 < number <= high):
        raise ValueError(f"{option} must be above 0 and at most {high}, got {value!r}")
    return repr(number)


def duration_option(option: str, value: Duration) -> str:
    """A duration within the option's bounds in the registry, as the string sent to the JVM."""
    text, length = parse_duration(option, value)
    low, high = _registry.duration_bounds(option)
    if low <= timedelta(milliseconds=1):
        if not timedelta(0) < length <= high:
            raise ValueError(
                f"{option} must be a positive duration of at most {_registry.shown_duration(high)}, got {_shown(value)}"
            )
    elif length < low:
        raise ValueError(f"{option} must be at least {_registry.shown_duration(low)}, got {_shown(value)}")
    elif length > high:
        raise ValueError(f"{option} must be at most {_registry.shown_duration(high)}, got {_shown(value)}")
    return text


def size_option(option: str, value: ByteSize) -> str:
    """A size above 0 and within the option's maximum in the registry, as the string sent to the JVM."""
    text, length = parse_byte_size(option, value)
    high = _registry.option(option).max
    if length <= 0 or (high is not None and length > high):
        limit = "" if high is None else f" and at most {_registry.shown_size(int(high))}"
        raise ValueError(f"{option} must be above 0{limit}, got {_shown(value)}")
    return text


def name_list(option: str, names: Any) -> str:
    """Join one or more names with commas, the form the JVM splits."""
    parts: List[str]
    if isinstance(names, str):
        parts = [part.strip() for part in names.split(",")]
    elif isinstance(names, Sequence) and not isinstance(names, (bytes, bytearray)):
        parts = []
        for name in names:
            require_type(option, name, str, "str or a sequence of str")
            if "," in name:
                raise ValueError(f"{option}: a name in a sequence must not contain ',', got {name!r}")
            parts.append(name.strip())
    else:
        raise TypeError(f"{option} must be a str or a sequence of str, got {type(names).__name__}")
    if not parts or any(not part for part in parts):
        raise ValueError(f"{option} needs one or more non-empty names, got {names!r}")
    return ",".join(parts)


def _shown(value: Union[Duration, ByteSize]) -> str:
    return repr(value) if isinstance(value, (str, timedelta)) else str(value)
