# SPDX-License-Identifier: Apache-2.0
"""The consumer manager's errors and the checks made before any call, whichever backend makes
the calls. Rules and messages come from the JVM (``_registry.json``: the manager's options,
``ConsumerNames``, the "did you mean" rule, the error conditions' messages), so a bad input
gets the same error and the same ``[KINESIS_...]`` message with or without py4j.
"""

from __future__ import annotations

import re
from typing import Dict, Optional

from pyspark_kinesis._registry import CONSUMER_MANAGER, SUGGESTION

__all__ = ["KinesisConsumerArgumentError", "KinesisConsumerError", "check_name", "check_options", "format_error"]


class KinesisConsumerError(RuntimeError):
    """A consumer call failed; the message is the connector's, e.g.
    ``[KINESIS_EFO_CONSUMER_NOT_FOUND] Stream 'orders' has no ... consumer named 'x' ...``.
    ``condition`` is the error condition (``KINESIS_...``) when the error carries one."""

    def __init__(self, message: str, condition: Optional[str] = None) -> None:
        super().__init__(message)
        self.condition = condition


class KinesisConsumerArgumentError(KinesisConsumerError, ValueError):
    """A bad option or consumer name, refused before any call to AWS (also a ``ValueError``)."""


def format_error(condition: str, **parameters: str) -> str:
    """``[CONDITION] message`` as the JVM formats it."""
    text = CONSUMER_MANAGER.errors[condition]
    for key, value in parameters.items():
        text = text.replace(f"<{key}>", value)
    return f"[{condition}] {text}"


def edit_distance(a: str, b: str) -> int:
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (ca != cb))
    return row[len(b)]


def check_options(options: Dict[str, str]) -> Dict[str, str]:
    """The options by the names the manager reads (matched case-insensitively).

    :raises KinesisConsumerArgumentError: an unknown option, naming the closest known one.
    """
    known = {name.lower(): name for name in CONSUMER_MANAGER.options}
    checked: Dict[str, str] = {}
    for key, value in options.items():
        name = known.get(key.lower())
        if name is None:
            best = min(CONSUMER_MANAGER.options, key=lambda o: edit_distance(key.lower(), o.lower()))
            close = SUGGESTION.close_enough(key, edit_distance(key.lower(), best.lower()))
            raise KinesisConsumerArgumentError(
                format_error(
                    "KINESIS_UNKNOWN_OPTION",
                    option=key,
                    suggestion=SUGGESTION.text.replace("<option>", best) if close else "",
                ),
                "KINESIS_UNKNOWN_OPTION",
            )
        checked[name] = value
    return checked


_NAME = re.compile(f"{CONSUMER_MANAGER.name_characters}+")


def check_name(name: str) -> str:
    """``name`` when Kinesis accepts it as a consumer name (the JVM's ``ConsumerNames.validate``).

    :raises KinesisConsumerArgumentError: the name is empty, too long or has other characters.
    """
    reasons, longest = CONSUMER_MANAGER.name_reasons, CONSUMER_MANAGER.name_max_length
    reason = None
    if not name:
        reason = reasons["empty"]
    elif len(name) > longest:
        reason = reasons["tooLong"].replace("<length>", str(len(name))).replace("<max>", str(longest))
    elif not _NAME.fullmatch(name):
        bad = dict.fromkeys(c for c in name if not re.fullmatch(CONSUMER_MANAGER.name_characters, c))
        reason = reasons["badCharacters"].replace("<characters>", ", ".join(f"'{c}'" for c in bad))
    if reason is not None:
        raise KinesisConsumerArgumentError(
            format_error("KINESIS_EFO_CONSUMER_NAME_INVALID", name=name, reason=reason),
            "KINESIS_EFO_CONSUMER_NAME_INVALID",
        )
    return name
