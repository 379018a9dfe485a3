# SPDX-License-Identifier: Apache-2.0
"""Writes ``pyspark_kinesis/_builders.py``, the options builders' setters, from the option
registry ``pyspark_kinesis/_registry.json`` (itself written from ``KinesisOptions.scala``).

Run by ``make docs-options`` after the registry; ``python/tests/test_generated_builders.py``
fails when the checked-in module is not what this writes. Each option gets a setter named for
it in snake case (``maxFetchRate`` -> ``max_fetch_rate``), typed, checked and documented by its
kind, bounds, default and description in the registry: adding an option to the registry adds
its setter, with no Python edit. The few options whose setter does more than its kind says are
written by hand in ``options.py`` and listed in ``HAND_WRITTEN``.

    python python/tools/generate_builders.py          # rewrite the module
    python python/tools/generate_builders.py --check  # exit 1 if it is stale
"""

from __future__ import annotations

import json
import re
import sys
import textwrap
from datetime import timedelta
from pathlib import Path
from typing import Any, Dict, List

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from pyspark_kinesis._registry import shown_duration, shown_size  # noqa: E402  (the bounds as the package shows them)

PACKAGE = Path(__file__).resolve().parent.parent / "pyspark_kinesis"
REGISTRY = PACKAGE / "_registry.json"
MODULE = PACKAGE / "_builders.py"

# Options whose setters options.py writes by hand, with why; "write:" names the sink's setter only.
HAND_WRITTEN = {
    "initialPosition": "words, a datetime, or per-shard positions as offset JSON",
    "endingPosition": "per-shard positions as offset JSON",
    "write:streamName": "the sink writes to one stream, not a list",
    "streamColumnName": "a column name, stripped",
    "consumerNamePrefix": "may be empty",
    "nonProxyHosts": "a list of hosts, joined into the one string the JVM reads",
}

# The parameter names of the setters users already call by keyword; a new option's is `value`.
PARAMETERS = {
    "streamName": "names",
    "streamARN": "arns",
    "region": "region",
    "endpoint": "endpoint",
    "maxRecordsPerFetch": "records",
    "maxFetchRate": "mb_per_second",
    "minFetchPeriod": "period",
    "maxFetchDuration": "duration",
    "fetchBufferSize": "size",
    "shardsPerTask": "shards",
    "shardFetchInterval": "interval",
    "awsAccessKey": "access_key",
    "awsSecretKey": "secret_key",
    "awsSessionToken": "session_token",
    "roleArn": "arn",
    "roleExternalId": "external_id",
    "roleSessionName": "session_name",
    "stsEndpoint": "endpoint",
    "profile": "name",
    "awsCredentialsProvider": "class_name",
    "awsCredentialsProviderSecret": "parameter",
    "proxyHost": "host",
    "proxyPort": "port",
    "proxyUsername": "username",
    "proxyPassword": "password",
    "coalesceThresholdBlockSize": "size",
    "coalesceBinSize": "size",
    "maxRecordsPerTrigger": "records",
    "maxBytesPerTrigger": "size",
    "maxRecordsPerShardPerTrigger": "records",
    "consumerMode": "mode",
    "requireConsumerDeregistration": "required",
    "failOnDataLoss": "fail",
    "outOfRangeUserRecords": "policy",
    "recordDecoder": "decoder",
    "includeRecordIds": "include",
    "maxShardsPerDescribe": "shards",
    "consumerName": "names",
    "consumerARN": "arns",
    "consumerRefreshInterval": "interval",
    "maxRecordsPerPut": "records",
    "maxBytesPerPut": "size",
    "maxInFlightPuts": "calls",
    "maxPutRetries": "retries",
    "putRetryBackoff": "backoff",
    "maxPutRetryBackoff": "backoff",
    "maxPutLinger": "linger",
    "aggregation": "mode",
    "orderPerKey": "ordered",
    "recordIds": "stamped",
}

# Per kind: the parameter's type and the check (in _checks) that turns it into the JVM's string.
KINDS = {
    "string": ("str", "non_empty_str"),
    "list": ("NameList", "name_list"),
    "bool": ("bool", "boolean"),
    "int": ("int", "int_option"),
    "long": ("int", "int_option"),
    "double": ("float", "decimal_option"),
    "duration": ("Duration", "duration_option"),
    "size": ("ByteSize", "size_option"),
    "enum": ("str", "registry_choice"),
}

HEADER = '''# SPDX-License-Identifier: Apache-2.0
# Written by python/tools/generate_builders.py from _registry.json (make docs-options): do not edit.
"""The options builders' setters, one per option of the registry, by where the option applies."""

from __future__ import annotations

from pyspark_kinesis import _checks
from pyspark_kinesis._checks import NameList
from pyspark_kinesis._option_map import Builder, OptionMap
from pyspark_kinesis._units import ByteSize, Duration

'''

CLASSES = [
    ("SharedSetters", "OptionMap", "The setters of options that apply to reading and writing."),
    ("SourceSetters", "SharedSetters", "The setters of options that apply to reading only."),
    ("SinkSetters", "SharedSetters", "The setters of options that apply to writing only."),
]


def snake(name: str) -> str:
    """The setter's name: an acronym is one word, streamARN -> stream_arn."""
    return re.sub(r"([A-Z]+)", lambda m: "_" + m.group(1).lower(), name)


def rst(markdown: str) -> str:
    """The registry's Markdown as docstring text: links become their text, `code` becomes ``code``."""
    text = re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", markdown)
    return re.sub(r"`([^`]+)`", r"``\1``", text)


def allowed(entry: Dict[str, Any]) -> str:
    """What the setter takes, with the registry's bounds, as a sentence without its full stop."""
    kind, low, high = entry["type"], entry.get("min"), entry.get("max")
    if kind == "string":
        return "A non-empty string"
    if kind == "list":
        return "One name, several as a sequence or a comma-separated string"
    if kind == "bool":
        return "``True`` or ``False``"
    if kind in ("int", "long"):
        return f"An integer from {low} to {high}" if high is not None else f"An integer of at least {low}"
    if kind == "double":
        return f"A number above 0 and at most {float(high)!r}"
    if kind == "duration":
        bounds = (
            f"positive and at most {shown_duration(timedelta(milliseconds=high))}"
            if low <= 1
            else f"from {shown_duration(timedelta(milliseconds=low))} to {shown_duration(timedelta(milliseconds=high))}"
        )
        return f"A duration (a ``timedelta`` or a string such as ``400ms`` or ``10s``), {bounds}"
    if kind == "size":
        limit = "" if high is None else f" and at most {shown_size(high)}"
        return f"A size (bytes, or a string such as ``512kb`` or ``10mb``), above 0{limit}"
    if kind == "enum":
        return "One of " + ", ".join(f'``"{c}"``' for c in entry["allowed"])
    raise ValueError(f"no setter for the kind {kind!r} of {entry['name']}: add it to KINDS or HAND_WRITTEN")


def docstring(entry: Dict[str, Any], description: str) -> List[str]:
    default = f" (default ``{entry['default']}``)" if entry["default"] is not None else ""
    secret = " Redacted in ``repr()``." if entry["secret"] else ""
    first = textwrap.wrap(f"``{entry['name']}``: {rst(description)}", 108)
    last = textwrap.wrap(f"{allowed(entry)}{default}.{secret}", 108)
    lines = ['"""' + first[0], *first[1:], "", *last, '"""']
    return [("        " + line).rstrip() for line in lines]


def setter(entry: Dict[str, Any], description: str) -> List[str]:
    name = entry["name"]
    kind, check = KINDS[entry["type"]] if entry["type"] in KINDS else (None, None)
    if kind is None:
        allowed(entry)  # raises, naming the kind
    parameter = PARAMETERS.get(name, "value")
    arguments = f'"{name}", _checks.{check}("{name}", {parameter})'
    # Formatted as ruff formats it, so the module passes the formatter's check as written.
    body = f"        return self._set({arguments})"
    if len(body) > 120:
        body = f"        return self._set(\n            {arguments}\n        )"
    return [
        f"    def {snake(name)}(self: Builder, {parameter}: {kind}) -> Builder:",
        *docstring(entry, description),
        body,
        "",
    ]


def render(registry: Dict[str, Any]) -> str:
    bodies: Dict[str, List[str]] = {name: [] for name, _, _ in CLASSES}
    for entry in registry["options"]:
        name, usage = entry["name"], entry["usage"]
        if name in HAND_WRITTEN:
            continue
        sink_by_hand = f"write:{name}" in HAND_WRITTEN
        if usage == "both" and not sink_by_hand:
            bodies["SharedSetters"] += setter(entry, entry["description"])
            continue
        if usage in ("read", "both"):
            bodies["SourceSetters"] += setter(entry, entry["description"])
        if usage == "write":
            bodies["SinkSetters"] += setter(entry, entry.get("writeDescription") or entry["description"])
    out = [HEADER.rstrip("\n"), ""]
    for cls, base, doc in CLASSES:
        out += ["", f"class {cls}({base}):", f'    """{doc}"""', "", *bodies[cls]]
    return "\n".join(out).rstrip("\n") + "\n"


def main(argv: List[str]) -> int:
    text = render(json.loads(REGISTRY.read_text(encoding="utf-8")))
    if "--check" in argv:
        if MODULE.read_text(encoding="utf-8") != text:
            print(f"{MODULE} is stale: run python python/tools/generate_builders.py", file=sys.stderr)
            return 1
        return 0
    MODULE.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
