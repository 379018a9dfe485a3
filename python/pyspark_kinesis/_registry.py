# SPDX-License-Identifier: Apache-2.0
"""The connector's option registry: names, kinds, defaults and bounds of every option, and the
consumer manager's rules.

``_registry.json`` is written from the JVM's registry (``KinesisOptions.scala``) by ``make
docs-options`` and checked against it by the Scala suite ``OptionsReferenceSuite``, so the
builders in :mod:`pyspark_kinesis.options` take their names and bounds from the same facts
the JVM parses with. Durations are in milliseconds, sizes in bytes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import timedelta
from importlib import resources
from typing import Any, Dict, Optional, Tuple


@dataclass(frozen=True)
class OptionFacts:
    """One option as the registry describes it."""

    name: str
    usage: str  # "read", "write" or "both"
    type: str  # string, list, json/position, bool, int, long, double, duration, size, enum
    default: Optional[str]
    min: Optional[float]
    max: Optional[float]
    allowed: Tuple[str, ...]
    secret: bool
    modes: Tuple[str, ...]
    pattern: Optional[str]  # a regex every value (or every name of a list) matches in full
    words: Tuple[str, ...]  # the words a position option takes besides JSON

    @property
    def reads(self) -> bool:
        return self.usage in ("read", "both")

    @property
    def writes(self) -> bool:
        return self.usage in ("write", "both")


def _facts(entry: Dict[str, Any]) -> OptionFacts:
    return OptionFacts(
        name=entry["name"],
        usage=entry["usage"],
        type=entry["type"],
        default=entry["default"],
        min=entry.get("min", entry.get("above")),
        max=entry.get("max"),
        allowed=tuple(entry.get("allowed", ())),
        secret=entry["secret"],
        modes=tuple(entry["modes"]),
        pattern=entry.get("pattern"),
        words=tuple(entry.get("words", ())),
    )


@dataclass(frozen=True)
class SuggestionRule:
    """When an unknown name is a likely typo of a known one, and how the suggestion reads."""

    within_edits: int
    characters_per_edit: int
    text: str  # with <option>

    def close_enough(self, typed: str, distance: int) -> bool:
        return distance <= max(self.within_edits, len(typed) // self.characters_per_edit)


@dataclass(frozen=True)
class ConsumerManagerFacts:
    """The consumer manager's options and rules, and the messages of the errors it raises."""

    options: Tuple[str, ...]
    activation_timeout: timedelta
    poll_interval: timedelta
    name_characters: str  # a regex character class
    name_max_length: int
    name_reasons: Dict[str, str]  # with <length>, <max>, <characters>
    errors: Dict[str, str]  # condition -> message with <parameter> placeholders


def _consumer_manager(entry: Dict[str, Any]) -> ConsumerManagerFacts:
    names = entry["consumerNames"]
    return ConsumerManagerFacts(
        options=tuple(entry["options"]),
        activation_timeout=timedelta(milliseconds=entry["activationTimeoutMs"]),
        poll_interval=timedelta(milliseconds=entry["pollIntervalMs"]),
        name_characters=names["allowedCharacters"],
        name_max_length=names["maxLength"],
        name_reasons=dict(names["reasons"]),
        errors=dict(entry["errors"]),
    )


def _load() -> Dict[str, Any]:
    text = resources.files("pyspark_kinesis").joinpath("_registry.json").read_text(encoding="utf-8")
    return dict(json.loads(text))


_JSON = _load()

OPTIONS: Dict[str, OptionFacts] = {entry["name"]: _facts(entry) for entry in _JSON["options"]}
"""Every option, by its name as the JVM reads it, in the registry's order."""

SUGGESTION = SuggestionRule(
    _JSON["suggestion"]["withinEdits"], _JSON["suggestion"]["charactersPerEdit"], _JSON["suggestion"]["text"]
)
"""The "did you mean" rule of unknown option names."""

CONSUMER_MANAGER = _consumer_manager(_JSON["consumerManager"])
"""The consumer manager's rules (AWSKinesisConsumerManager, ConsumerNames, ConsumerRegistry)."""


def option(name: str) -> OptionFacts:
    return OPTIONS[name]


def pattern(name: str) -> str:
    """The regex every value of option ``name`` matches in full."""
    found = OPTIONS[name].pattern
    assert found is not None, name
    return found


def int_bounds(name: str) -> Tuple[int, int]:
    facts = OPTIONS[name]
    assert facts.min is not None and facts.max is not None, name
    return int(facts.min), int(facts.max)


def duration_bounds(name: str) -> Tuple[timedelta, timedelta]:
    facts = OPTIONS[name]
    assert facts.type == "duration" and facts.min is not None and facts.max is not None, name
    return timedelta(milliseconds=facts.min), timedelta(milliseconds=facts.max)


def shown_duration(length: timedelta) -> str:
    """A bound as a user writes it: 3600000 ms as 1h, 200 ms as 200ms."""
    ms = length // timedelta(milliseconds=1)
    for unit, size in (("h", 3_600_000), ("m", 60_000), ("s", 1_000)):
        if ms % size == 0:
            return f"{ms // size}{unit}"
    return f"{ms}ms"


def shown_size(size: int) -> str:
    """A bound as a user writes it: 5242880 bytes as 5mb."""
    for unit, factor in (("tb", 1 << 40), ("gb", 1 << 30), ("mb", 1 << 20), ("kb", 1 << 10)):
        if size % factor == 0:
            return f"{size // factor}{unit}"
    return f"{size}b"
