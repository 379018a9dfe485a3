# SPDX-License-Identifier: Apache-2.0
"""What every options builder is: an option map that setters fill, shown with its secrets redacted."""

from __future__ import annotations

from typing import Dict, TypeVar

from pyspark_kinesis import _registry

SECRET_OPTION_NAMES: frozenset[str] = frozenset(o.name for o in _registry.OPTIONS.values() if o.secret)
"""Options whose values are never shown by ``repr()`` or in error messages."""

_REDACTED = "*********(redacted)"

Builder = TypeVar("Builder", bound="OptionMap")
"""The builder a setter was called on, which it returns."""


class OptionMap:
    """The options set so far, by the name the JVM reads. Every setter returns the builder it was called on."""

    def __init__(self) -> None:
        self._options: Dict[str, str] = {}

    def to_dict(self) -> Dict[str, str]:
        """The options set so far, option name -> string value (secrets included)."""
        return dict(self._options)

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{name}={_REDACTED if name in SECRET_OPTION_NAMES else value!r}" for name, value in self._options.items()
        )
        return f"{type(self).__name__}({shown})"

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._options == other._options

    __hash__ = None  # type: ignore[assignment]  # mutable

    def _set(self: Builder, option: str, value: str) -> Builder:
        self._options[option] = value
        return self
