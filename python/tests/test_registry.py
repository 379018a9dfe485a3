# SPDX-License-Identifier: Apache-2.0
"""The builders follow the option registry (``_registry.json``, written from the JVM's
``KinesisOptions.scala`` and checked against it by ``OptionsReferenceSuite``): every option
has a builder method, each bound the JVM checks is checked here too, at the same value, and
the defaults the docstrings state are the registry's. No Spark JVM needed."""

import re
from datetime import timedelta

import pytest

from pyspark_kinesis import KinesisSinkOptions, KinesisSourceOptions
from pyspark_kinesis._registry import OPTIONS

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
    missing = [f"{cls.__name__}.{snake(f.name)}" for f in OPTIONS.values() for cls in builders(f)
               if not callable(getattr(cls, snake(f.name), None))]
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
