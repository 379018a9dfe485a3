# SPDX-License-Identifier: Apache-2.0
"""Typed, chainable builders for the options of ``format("kinesis")``.

Each method checks its argument at once (``TypeError`` naming the type it got, ``ValueError``
naming the option and what is allowed) and stores the option under the exact name the JVM
reads, so a typo in an option name is impossible and a bad value fails on the line that
set it. The JVM still validates every option when the DataFrame is defined; these checks
only move the common mistakes earlier.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Dict, Optional, Protocol, Tuple, TypeVar, Union

from pyspark_kinesis import _registry
from pyspark_kinesis._builders import SharedSetters, SinkSetters, SourceSetters
from pyspark_kinesis._checks import NameList, name_list, non_empty_str, require_type
from pyspark_kinesis._option_map import SECRET_OPTION_NAMES, Builder

__all__ = [
    "KinesisSinkOptions",
    "KinesisSourceOptions",
    "SINK_OPTION_NAMES",
    "SOURCE_OPTION_NAMES",
    "SECRET_OPTION_NAMES",
]

SOURCE_OPTION_NAMES: Tuple[str, ...] = tuple(o.name for o in _registry.OPTIONS.values() if o.reads)
"""Every option name :class:`KinesisSourceOptions` can produce, spelled as the JVM reads it."""

SINK_OPTION_NAMES: Tuple[str, ...] = tuple(o.name for o in _registry.OPTIONS.values() if o.writes)
"""Every option name :class:`KinesisSinkOptions` can produce, spelled as the JVM reads it."""

INITIAL_POSITIONS = _registry.option("initialPosition").words
"""The words ``initialPosition`` takes besides JSON."""

# A datetime is sent in UTC with an explicit pattern, so the JVM's parse cannot depend on its
# default time zone or locale. The pattern means the same to SimpleDateFormat and
# DateTimeFormatter.
AT_TIMESTAMP_FORMAT = "yyyy-MM-dd'T'HH:mm:ss.SSSX"

_STREAM_NAME = re.compile(_registry.pattern("streamName"))


class _SupportsOptions(Protocol):
    """What :meth:`KinesisSourceOptions.apply` needs: classic or Connect, stream or batch reader."""

    def options(self: _Reader, **options: str) -> _Reader: ...


_Reader = TypeVar("_Reader", bound=_SupportsOptions)


class _KinesisOptions(SharedSetters):
    """What the source and sink builders share: where Kinesis is, how to authenticate, and
    the option map itself. Every setter returns the builder it was called on; most are
    generated from the option registry (``_builders.py``)."""

    def non_proxy_hosts(self: Builder, hosts: NameList) -> Builder:
        """``nonProxyHosts``: hosts reached without the proxy; ``*`` stands for any characters."""
        return self._set("nonProxyHosts", name_list("nonProxyHosts", hosts))


class KinesisSourceOptions(SourceSetters, _KinesisOptions):
    """Options for ``spark.readStream.format("kinesis")`` (and ``spark.read``).

    >>> opts = (KinesisSourceOptions()
    ...         .stream_name(["orders", "payments"])
    ...         .region("us-east-1")
    ...         .initial_position("trim_horizon")
    ...         .min_fetch_period(timedelta(milliseconds=250)))
    >>> opts.to_dict()["minFetchPeriod"]
    '250ms'
    >>> df = opts.apply(spark.readStream.format("kinesis")).load()  # doctest: +SKIP

    Setting an option again replaces its value. Secrets (``awsAccessKey``, ``awsSecretKey``,
    ``awsSessionToken``) are redacted in ``repr()``, but :meth:`to_dict` returns them as they
    are, because Spark needs them.
    """

    def initial_position(self, position: str) -> KinesisSourceOptions:
        """``initialPosition``: ``"latest"`` (the default), ``"trim_horizon"`` or ``"earliest"``.

        To start at a point in time use :meth:`initial_position_at_timestamp`.
        """
        require_type("initialPosition", position, str, "str")
        value = position.strip().lower()
        if value == "at_timestamp":
            raise ValueError(
                "initialPosition at_timestamp needs a timestamp: use "
                "initial_position_at_timestamp(ts) instead of initial_position('at_timestamp')"
            )
        if value not in INITIAL_POSITIONS:
            raise ValueError(
                f"initialPosition must be one of {', '.join(INITIAL_POSITIONS)} "
                f"(or use initial_position_at_timestamp), got {position!r}"
            )
        return self._set("initialPosition", value)

    def initial_position_at_timestamp(
        self, ts: Union[datetime, str], fmt: Optional[str] = None
    ) -> KinesisSourceOptions:
        """``initialPosition`` ``at_timestamp``: read records that arrived at or after ``ts``.

        A timezone-aware :class:`~datetime.datetime` is converted to UTC and sent with an
        explicit pattern (``{"at_timestamp": "2020-06-25T17:23:45.000Z", "format":
        "yyyy-MM-dd'T'HH:mm:ss.SSSX"}``); a naive one is rejected, since the JVM would have
        to guess its zone. A string is sent as given, parsed by the JVM with ``fmt`` (a Java
        date pattern) or, without one, the Java default ``MM/dd/yyyy HH:mm:ss z`` (e.g.
        ``"06/25/2020 10:23:45 PDT"``).
        """
        spec: Dict[str, str]
        if isinstance(ts, datetime):
            if fmt is not None:
                raise ValueError(
                    "initialPosition: fmt applies only to a string timestamp; a datetime is "
                    "always sent in UTC with its own format"
                )
            offset = ts.utcoffset()
            if offset is None:
                raise ValueError(
                    f"initialPosition at_timestamp needs a timezone-aware datetime, got the naive "
                    f"{ts.isoformat()!r}; pass tzinfo, e.g. datetime(..., tzinfo=timezone.utc)"
                )
            utc = ts.astimezone(timezone.utc)
            text = f"{utc:%Y-%m-%dT%H:%M:%S}.{utc.microsecond // 1000:03d}Z"
            spec = {"at_timestamp": text, "format": AT_TIMESTAMP_FORMAT}
        elif isinstance(ts, str):
            spec = {"at_timestamp": non_empty_str("initialPosition at_timestamp", ts)}
            if fmt is not None:
                spec["format"] = non_empty_str("initialPosition format", fmt)
        else:
            raise TypeError(f"initialPosition at_timestamp must be a datetime or str, got {type(ts).__name__}")
        return self._set("initialPosition", json.dumps(spec))

    def initial_position_at_sequences(self, positions: Mapping[str, Mapping[str, str]]) -> KinesisSourceOptions:
        """``initialPosition`` as per-shard positions: ``{stream: {shardId: sequenceNumber}}``.

        Each shard starts *at* the given record (it is read); shards not named start at the
        trim horizon. The JVM reads this as offset JSON, the format of the checkpoint.
        """
        return self._set("initialPosition", _sequence_positions("initialPosition", positions, "at"))

    def ending_position_at_sequences(self, positions: Mapping[str, Mapping[str, str]]) -> KinesisSourceOptions:
        """``endingPosition`` (batch reads only): per shard, the last record to read,
        ``{stream: {shardId: sequenceNumber}}``. By default a batch read ends at the tip."""
        return self._set("endingPosition", _sequence_positions("endingPosition", positions, "after"))

    def stream_column_name(self, name: str) -> KinesisSourceOptions:
        """``streamColumnName``: the name of the column holding each record's stream (default
        ``"stream"``); ``"streamName"`` is what qubole's and awslabs' connectors call it."""
        require_type("streamColumnName", name, str, "str")
        if not name.strip():
            raise ValueError("streamColumnName must be a column name, got an empty string")
        return self._set("streamColumnName", name.strip())

    def consumer_name_prefix(self, prefix: str) -> KinesisSourceOptions:
        """``consumerNamePrefix``: prefix of registered consumer names; may be empty."""
        require_type("consumerNamePrefix", prefix, str, "str")
        return self._set("consumerNamePrefix", prefix)

    def apply(self, reader: _Reader) -> _Reader:
        """Return ``reader.options(**self.to_dict())``.

        Works with any ``DataStreamReader`` or ``DataFrameReader``, classic or Spark Connect.
        """
        if not callable(getattr(reader, "options", None)):
            raise TypeError(f"apply() needs a DataStreamReader or DataFrameReader, got {type(reader).__name__}")
        return reader.options(**self._options)


class _SupportsWriterOptions(Protocol):
    """What :meth:`KinesisSinkOptions.apply` needs: a DataFrameWriter or DataStreamWriter."""

    def options(self: _Writer, **options: str) -> _Writer: ...


_Writer = TypeVar("_Writer", bound=_SupportsWriterOptions)


class KinesisSinkOptions(SinkSetters, _KinesisOptions):
    """Options for ``df.write.format("kinesis")`` and ``df.writeStream.format("kinesis")``.

    >>> opts = (KinesisSinkOptions()
    ...         .stream_name("orders")
    ...         .region("us-east-1")
    ...         .max_in_flight_puts(8))
    >>> opts.to_dict()["maxInFlightPuts"]
    '8'
    >>> opts.apply(df.writeStream.format("kinesis")).start()  # doctest: +SKIP

    The DataFrame written has a ``data`` column (binary or string), a ``partitionKey`` string
    column, optionally ``explicitHashKey``, and a ``stream`` column when no stream name is set.
    Secrets are redacted in ``repr()``; :meth:`to_dict` returns them as they are.
    """

    def stream_name(self, name: str) -> KinesisSinkOptions:
        """``streamName``: the one stream every row goes to.

        Leave it out to route each row by its ``stream`` column.
        """
        require_type("streamName", name, str, "str")
        value = name.strip()
        if not _STREAM_NAME.fullmatch(value):
            raise ValueError(
                f"streamName must be one stream name of 1 to 128 letters, digits, '_', '.' or '-' "
                f"(to write to several streams, route rows by a 'stream' column), got {name!r}"
            )
        return self._set("streamName", value)

    def apply(self, writer: _Writer) -> _Writer:
        """Return ``writer.options(**self.to_dict())``.

        Works with any ``DataFrameWriter`` or ``DataStreamWriter``, classic or Spark Connect.
        """
        if not callable(getattr(writer, "options", None)):
            raise TypeError(f"apply() needs a DataFrameWriter or DataStreamWriter, got {type(writer).__name__}")
        return writer.options(**self._options)


def _sequence_positions(option: str, positions: Mapping[str, Mapping[str, str]], kind: str) -> str:
    """Offset JSON (version 1) with one position of type ``kind`` per named shard."""
    if not isinstance(positions, Mapping):
        raise TypeError(
            f"{option} positions must be a mapping of stream to {{shardId: sequenceNumber}}, "
            f"got {type(positions).__name__}"
        )
    shards: Dict[str, Dict[str, Dict[str, str]]] = {}
    for stream, by_shard in positions.items():
        if not isinstance(stream, str) or not isinstance(by_shard, Mapping):
            raise TypeError(f"{option} positions must map stream names to {{shardId: sequenceNumber}}")
        for shard_id, seq in by_shard.items():
            if not isinstance(shard_id, str) or not isinstance(seq, str) or not seq.isdigit():
                raise ValueError(
                    f"{option}: shard {shard_id!r} of {stream!r} needs a decimal sequence number string, got {seq!r}"
                )
            shards.setdefault(stream, {})[shard_id] = {"type": kind, "seq": seq}
    return json.dumps({"version": 1, "shards": shards}, sort_keys=True)
