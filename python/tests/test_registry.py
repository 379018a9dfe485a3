# SPDX-License-Identifier: Apache-2.0
"""The builders follow the option registry (``_registry.json``, written from the JVM's
``KinesisOptions.scala`` and checked against it by ``OptionsReferenceSuite``): every option
has a builder method, each bound the JVM checks is checked here too, at the same value, and
what the docstrings and messages state (the option, defaults, bounds, choices, the stream-name
rule) is the registry's. No Spark JVM needed."""

import re
from datetime import timedelta

import pytest

from pyspark_kinesis import KinesisSinkOptions, KinesisSourceOptions
from pyspark_kinesis._registry import OPTIONS, pattern, shown_duration, shown_size

# Options whose builder method is not the option's name in snake case.
METHOD_OF = {"endingPosition": "ending_position_at_sequences"}


def snake(name):
    # An acronym is one word: streamARN -> stream_arn.
    return METHOD_OF.get(name, re.sub(r"([A-Z]+)", lambda m: "_" + m.group(1).lower(), name))


def builders(facts):
    return ([KinesisSourceOptions] if facts.reads else []) + ([KinesisSinkOptions] if facts.writes else [])


def argument(facts, number):
    """A value of the option's kind with the given size (ms for durations, bytes for sizes)."""
    if facts.type == "duration":
        return timedelta(milliseconds=number)
    return int(number) if facts.type in ("int", "long", "size") else float(number)


BOUNDED = [f for f in OPTIONS.values() if f.type in ("int", "long", "duration", "size", "double")]


def test_every_option_has_a_builder_method_where_it_applies():
    missing = [
        f"{cls.__name__}.{snake(f.name)}"
        for f in OPTIONS.values()
        for cls in builders(f)
        if not callable(getattr(cls, snake(f.name), None))
    ]
    assert not missing


@pytest.mark.parametrize("facts", BOUNDED, ids=lambda f: f.name)
def test_the_builders_accept_the_registry_bounds_and_refuse_just_past_them(facts):
    step = 1 if facts.type != "double" else 0.001
    for cls in builders(facts):
        method = getattr(cls(), snake(facts.name))
        low_inclusive = facts.type in ("int", "long", "duration")
        lowest = facts.min if low_inclusive else facts.min + step
        method(argument(facts, lowest))
        with pytest.raises(ValueError, match=facts.name):
            method(argument(facts, lowest - step))
        if facts.max is not None:
            method(argument(facts, facts.max))
            with pytest.raises(ValueError, match=facts.name):
                method(argument(facts, facts.max + step))


@pytest.mark.parametrize("facts", [f for f in OPTIONS.values() if f.type == "enum"], ids=lambda f: f.name)
def test_the_builders_accept_exactly_the_registry_choices(facts):
    for cls in builders(facts):
        method = getattr(cls(), snake(facts.name))
        for choice in facts.allowed:
            assert method(choice).to_dict() == {facts.name: choice}
        with pytest.raises(ValueError, match=facts.name):
            method("not-" + facts.allowed[0])


def test_defaults_stated_in_docstrings_are_the_registry_defaults():
    wrong = []
    for facts in OPTIONS.values():
        for cls in builders(facts):
            doc = getattr(cls, snake(facts.name)).__doc__ or ""
            stated = re.search(r"\(default ``?([^`)]+)``?\)|\(default ([^)]+)\)", doc)
            if stated and (stated.group(1) or stated.group(2)) != facts.default:
                wrong.append(f"{cls.__name__}.{snake(facts.name)} says {stated.group(0)}, registry {facts.default}")
    assert not wrong


def method_docs():
    """(facts, builder class, docstring) of every option's builder method."""
    return [(f, cls, getattr(cls, snake(f.name)).__doc__ or "") for f in OPTIONS.values() for cls in builders(f)]


def test_every_builder_docstring_starts_with_the_option_it_sets():
    wrong = [f"{cls.__name__}.{snake(f.name)}" for f, cls, doc in method_docs() if not doc.startswith(f"``{f.name}``")]
    assert not wrong


def shown(facts, number):
    """A bound as the docstrings write it: 200ms, 5mb, 2.0, 10000."""
    if facts.type == "duration":
        return shown_duration(timedelta(milliseconds=number))
    if facts.type == "size":
        return shown_size(int(number))
    return repr(float(number)) if facts.type == "double" else str(int(number))


BOUND = r"(\d(?:[\w.]*\w)?)"  # a number with its unit, not the full stop after it
STATED_BOUNDS = re.compile(rf"{BOUND} to {BOUND}|at least {BOUND}|at most {BOUND}|(above 0)")


def wrong_bounds(facts, doc):
    """The bounds ``doc`` states that are not the registry's."""
    wrong = []
    for low, high, least, most, above in STATED_BOUNDS.findall(" ".join(doc.split())):
        if facts.min is None and facts.max is None:
            wrong.append(low or least or most or above)
        elif low and (low, high) != (shown(facts, facts.min), shown(facts, facts.max)):
            wrong.append(f"{low} to {high}")
        elif least and least != shown(facts, facts.min):
            wrong.append(f"at least {least}")
        elif most and (facts.max is None or most != shown(facts, facts.max)):
            wrong.append(f"at most {most}")
        elif above and facts.type not in ("double", "size"):
            wrong.append(above)
    return wrong


def test_bounds_stated_in_docstrings_are_the_registry_bounds():
    wrong = [
        f"{cls.__name__}.{snake(f.name)} states {bound}; registry: {f.min} to {f.max}"
        for f, cls, doc in method_docs()
        for bound in wrong_bounds(f, doc)
    ]
    assert not wrong


def test_the_bounds_check_reads_each_way_docstrings_state_bounds():
    linger, rate = OPTIONS["maxPutLinger"], OPTIONS["maxFetchRate"]
    assert wrong_bounds(linger, "from 1ms to 10m (default 50ms)") == []
    assert wrong_bounds(linger, "from 1ms to\n   1h") == ["1ms to 1h"]
    assert wrong_bounds(rate, "above 0 and at most 2.0") == []
    assert wrong_bounds(rate, "at most 3.0") == ["at most 3.0"]
    assert wrong_bounds(OPTIONS["minFetchPeriod"], "at least 100ms") == ["at least 100ms"]
    assert wrong_bounds(OPTIONS["region"], "at most 2") == ["2"]


@pytest.mark.parametrize(
    "facts", [f for f in OPTIONS.values() if f.allowed and f.type == "enum" or f.words], ids=lambda f: f.name
)
def test_words_quoted_in_docstrings_are_the_registry_choices(facts):
    choices = set(facts.allowed or facts.words)
    for cls in builders(facts):
        quoted = set(re.findall(r'``"([^"`]+)"``', getattr(cls, snake(facts.name)).__doc__ or ""))
        assert quoted <= choices
        if facts.name not in METHOD_OF:
            assert quoted == choices


def test_stream_names_follow_the_registry_pattern_and_the_message_states_its_bounds():
    length = re.search(r"\{(\d+),(\d+)\}", pattern("streamName"))
    assert length is not None
    low, high = length.groups()
    KinesisSinkOptions().stream_name("a" * int(high))
    with pytest.raises(ValueError, match=f"{low} to {high} letters"):
        KinesisSinkOptions().stream_name("a" * (int(high) + 1))
    with pytest.raises(ValueError, match="streamName"):
        KinesisSinkOptions().stream_name("has space")


def test_initial_position_words_are_the_registry_words():
    for word in OPTIONS["initialPosition"].words:
        assert KinesisSourceOptions().initial_position(word.upper()).to_dict() == {"initialPosition": word}
    with pytest.raises(ValueError, match=", ".join(OPTIONS["initialPosition"].words)):
        KinesisSourceOptions().initial_position("middle")
