# SPDX-License-Identifier: Apache-2.0
"""The builders' setters are generated from the option registry (``python/tools/generate_builders.py``
writes ``_builders.py``): the checked-in module is what the generator writes from the registry of
this tree, and an option added to the registry gets its setter, checked and documented, with no
Python edit. No Spark JVM needed."""

import copy
import importlib.util
import json
import types
from pathlib import Path

import pytest

from pyspark_kinesis import _registry

PYTHON = Path(__file__).resolve().parent.parent
GENERATOR = PYTHON / "tools" / "generate_builders.py"


def generator():
    spec = importlib.util.spec_from_file_location("generate_builders", GENERATOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def registry():
    return json.loads((PYTHON / "pyspark_kinesis" / "_registry.json").read_text(encoding="utf-8"))


def test_the_checked_in_setters_are_what_the_registry_generates():
    gen = generator()
    written = (PYTHON / "pyspark_kinesis" / "_builders.py").read_text(encoding="utf-8")
    assert written == gen.render(registry()), (
        "_builders.py is stale: run `python python/tools/generate_builders.py` (make docs-options does)"
    )


def test_an_option_added_to_the_registry_gets_a_checked_documented_setter(monkeypatch):
    added = {
        "name": "maxWidgetsPerCall",
        "usage": "read",
        "type": "int",
        "default": "7",
        "min": 1,
        "max": 9,
        "modes": ["polling"],
        "secret": False,
        "emptyMeansNotGiven": False,
        "description": "Widgets asked for per `GetWidgets` call.",
    }
    grown = copy.deepcopy(registry())
    grown["options"].append(added)
    module = types.ModuleType("generated")
    exec(compile(generator().render(grown), "generated", "exec"), module.__dict__)
    monkeypatch.setitem(_registry.OPTIONS, added["name"], _registry._facts(added))

    setter = module.SourceSetters().max_widgets_per_call
    assert setter(9).to_dict() == {"maxWidgetsPerCall": "9"}
    with pytest.raises(ValueError, match="maxWidgetsPerCall must be between 1 and 9, got 10"):
        setter(10)
    with pytest.raises(TypeError, match="got str"):
        setter("9")
    doc = setter.__doc__ or ""
    assert doc.startswith("``maxWidgetsPerCall``: Widgets asked for per ``GetWidgets`` call.")
    assert "An integer from 1 to 9 (default ``7``)." in doc
    assert not hasattr(module.SinkSetters(), "max_widgets_per_call")


def test_a_kind_the_generator_does_not_know_is_named():
    grown = copy.deepcopy(registry())
    grown["options"].append(dict(grown["options"][2], name="widgetShape", type="polygon"))
    with pytest.raises(ValueError, match="'polygon' of widgetShape"):
        generator().render(grown)
