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
import math
import re
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta, timezone
from typing import Any, Dict, List, Optional, Protocol, Tuple, TypeVar, Union

from pyspark_kinesis import _registry
from pyspark_kinesis._units import ByteSize, Duration, parse_byte_size, parse_duration

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

SECRET_OPTION_NAMES: frozenset[str] = frozenset(o.name for o in _registry.OPTIONS.values() if o.secret)
"""Options whose values are never shown by ``repr()`` or in error messages."""

NameList = Union[str, Sequence[str]]
"""One name, a comma-separated string of names, or a sequence of names."""

INITIAL_POSITIONS = _registry.option("initialPosition").words
"""The words ``initialPosition`` takes besides JSON."""

# A datetime is sent in UTC with an explicit pattern, so the JVM's parse cannot depend on its
# default time zone or locale. The pattern means the same to SimpleDateFormat and
# DateTimeFormatter.
AT_TIMESTAMP_FORMAT = "yyyy-MM-dd'T'HH:mm:ss.SSSX"

# Bounds the builders check, from the registry.
MAX_FETCH_RATE_MB_PER_S = float(_registry.option("maxFetchRate").max or 0)
CONSUMER_MODES = _registry.option("consumerMode").allowed
AGGREGATIONS = _registry.option("aggregation").allowed
OUT_OF_RANGE_POLICIES = _registry.option("outOfRangeUserRecords").allowed
RECORD_DECODERS = _registry.option("recordDecoder").allowed

_REDACTED = "*********(redacted)"

_STREAM_NAME = re.compile(_registry.pattern("streamName"))


class _SupportsOptions(Protocol):
    """What :meth:`KinesisSourceOptions.apply` needs: classic or Connect, stream or batch reader."""

    def options(self: _Reader, **options: str) -> _Reader: ...


_Reader = TypeVar("_Reader", bound=_SupportsOptions)


_Options = TypeVar("_Options", bound="_KinesisOptions")


class _KinesisOptions:
    """What the source and sink builders share: where Kinesis is, how to authenticate, and
    the option map itself. Every setter returns the builder it was called on."""

    def __init__(self) -> None:
        self._options: Dict[str, str] = {}

    # -- where Kinesis is -----------------------------------------------------------------

    def region(self: _Options, region: str) -> _Options:
        """``region``: the AWS region of the streams, e.g. ``"us-east-1"``."""
        return self._set("region", _non_empty_str("region", region))

    def endpoint(self: _Options, endpoint: str) -> _Options:
        """``endpoint``: the Kinesis endpoint URL, e.g. ``"https://kinesis.us-east-1.amazonaws.com"``."""
        return self._set("endpoint", _non_empty_str("endpoint", endpoint))

    # -- credentials ----------------------------------------------------------------------

    def aws_access_key(self: _Options, access_key: str) -> _Options:
        """``awsAccessKey``: the access key id (redacted in ``repr()``)."""
        return self._set("awsAccessKey", _non_empty_str("awsAccessKey", access_key))

    def aws_secret_key(self: _Options, secret_key: str) -> _Options:
        """``awsSecretKey``: the secret access key (redacted in ``repr()``)."""
        return self._set("awsSecretKey", _non_empty_str("awsSecretKey", secret_key))

    def aws_session_token(self: _Options, session_token: str) -> _Options:
        """``awsSessionToken``: the session token of temporary credentials (redacted in ``repr()``)."""
        return self._set("awsSessionToken", _non_empty_str("awsSessionToken", session_token))

    def role_arn(self: _Options, arn: str) -> _Options:
        """``roleArn``: the ARN of a role to assume through STS.

        It is assumed with :meth:`aws_access_key` / :meth:`aws_secret_key` if set, else with
        the AWS default credential chain, and renewed before its credentials expire.
        """
        return self._set("roleArn", _non_empty_str("roleArn", arn))

    def role_external_id(self: _Options, external_id: str) -> _Options:
        """``roleExternalId``: the external id the role's trust policy asks for."""
        return self._set("roleExternalId", _non_empty_str("roleExternalId", external_id))

    def role_session_name(self: _Options, session_name: str) -> _Options:
        """``roleSessionName``: the name of the assumed-role session (default ``spark-kinesis``)."""
        return self._set("roleSessionName", _non_empty_str("roleSessionName", session_name))

    def sts_endpoint(self: _Options, endpoint: str) -> _Options:
        """``stsEndpoint``: the STS endpoint URL used to assume ``roleArn``."""
        return self._set("stsEndpoint", _non_empty_str("stsEndpoint", endpoint))

    def profile(self: _Options, name: str) -> _Options:
        """``profile``: a named profile of the AWS shared credentials and config files of each
        JVM, read again when the files change (keys rotated in place are used without a restart)."""
        return self._set("profile", _non_empty_str("profile", name))

    def aws_credentials_provider(self: _Options, class_name: str) -> _Options:
        """``awsCredentialsProvider``: the name of a JVM class implementing the AWS SDK v2's
        ``AwsCredentialsProvider``, on the classpath of the driver and every executor."""
        return self._set("awsCredentialsProvider", _non_empty_str("awsCredentialsProvider", class_name))

    def aws_credentials_provider_secret(self: _Options, parameter: str) -> _Options:
        """``awsCredentialsProviderSecret``: the String ``awsCredentialsProvider`` is built with
        (redacted in ``repr()``)."""
        return self._set("awsCredentialsProviderSecret", _non_empty_str("awsCredentialsProviderSecret", parameter))

    # -- the HTTP proxy -------------------------------------------------------------------

    def proxy_host(self: _Options, host: str) -> _Options:
        """``proxyHost``: host name or IP address of the HTTP proxy every AWS call goes through."""
        return self._set("proxyHost", _non_empty_str("proxyHost", host))

    def proxy_port(self: _Options, port: int) -> _Options:
        """``proxyPort``: the port of ``proxyHost``, 1 to 65535."""
        return self._set("proxyPort", _int_option("proxyPort", port))

    def proxy_username(self: _Options, username: str) -> _Options:
        """``proxyUsername``: the user name of the proxy's Basic authentication."""
        return self._set("proxyUsername", _non_empty_str("proxyUsername", username))

    def proxy_password(self: _Options, password: str) -> _Options:
        """``proxyPassword``: the password of the proxy's Basic authentication (redacted in ``repr()``)."""
        return self._set("proxyPassword", _non_empty_str("proxyPassword", password))

    def non_proxy_hosts(self: _Options, hosts: NameList) -> _Options:
        """``nonProxyHosts``: hosts reached without the proxy; ``*`` stands for any characters."""
        return self._set("nonProxyHosts", _name_list("nonProxyHosts", hosts))

    # -- output ---------------------------------------------------------------------------

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

    def _set(self: _Options, option: str, value: str) -> _Options:
        self._options[option] = value
        return self


class KinesisSourceOptions(_KinesisOptions):
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

    # -- where to read ------------------------------------------------------------------

    def stream_name(self, names: NameList) -> KinesisSourceOptions:
        """``streamName``: one stream, or several as a sequence or comma-separated string."""
        return self._set("streamName", _name_list("streamName", names))

    def stream_arn(self, arns: NameList) -> KinesisSourceOptions:
        """``streamARN``: the streams by ARN instead of by name (one region; it sets the region)."""
        return self._set("streamARN", _name_list("streamARN", arns))

    def initial_position(self, position: str) -> KinesisSourceOptions:
        """``initialPosition``: ``"latest"`` (the default), ``"trim_horizon"`` or ``"earliest"``.

        To start at a point in time use :meth:`initial_position_at_timestamp`.
        """
        _require_type("initialPosition", position, str, "str")
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
            spec = {"at_timestamp": _non_empty_str("initialPosition at_timestamp", ts)}
            if fmt is not None:
                spec["format"] = _non_empty_str("initialPosition format", fmt)
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

    # -- polling and prefetching --------------------------------------------------------

    def max_records_per_fetch(self, records: int) -> KinesisSourceOptions:
        """``maxRecordsPerFetch``: records asked for per GetRecords call, 1 to 10000 (default 10000)."""
        return self._set("maxRecordsPerFetch", _int_option("maxRecordsPerFetch", records))

    def max_fetch_rate(self, mb_per_second: float) -> KinesisSourceOptions:
        """``maxFetchRate``: prefetch rate per shard in MiB/s, above 0 and at most 2.0 (default 1.0)."""
        option = "maxFetchRate"
        if isinstance(mb_per_second, bool) or not isinstance(mb_per_second, (int, float)):
            raise TypeError(f"{option} must be a float, got {type(mb_per_second).__name__}")
        rate = float(mb_per_second)
        if not (math.isfinite(rate) and 0.0 < rate <= MAX_FETCH_RATE_MB_PER_S):
            raise ValueError(
                f"{option} must be above 0 and at most {MAX_FETCH_RATE_MB_PER_S} (MB/s, the "
                f"Kinesis per-shard read limit), got {mb_per_second!r}"
            )
        return self._set(option, repr(rate))

    def min_fetch_period(self, period: Duration) -> KinesisSourceOptions:
        """``minFetchPeriod``: wait between fetches from a shard, at least 200ms (default 400ms).

        Kinesis allows 5 GetRecords calls per second per shard, hence the minimum.
        """
        text = _duration_option("minFetchPeriod", period)
        return self._set("minFetchPeriod", text)

    def max_fetch_duration(self, duration: Duration) -> KinesisSourceOptions:
        """``maxFetchDuration``: how long a prefetch task buffers before its data is offered (default 10s)."""
        return self._set("maxFetchDuration", _duration_option("maxFetchDuration", duration))

    def fetch_buffer_size(self, size: ByteSize) -> KinesisSourceOptions:
        """``fetchBufferSize``: data buffered for the next trigger, e.g. ``"10mb"`` or bytes (default 20gb)."""
        return self._set("fetchBufferSize", _size_option("fetchBufferSize", size))

    def max_records_per_trigger(self, records: int) -> KinesisSourceOptions:
        """``maxRecordsPerTrigger``: the most records a micro-batch reads, shared fairly across shards, at least 1."""
        return self._set("maxRecordsPerTrigger", _int_option("maxRecordsPerTrigger", records))

    def max_bytes_per_trigger(self, size: ByteSize) -> KinesisSourceOptions:
        """``maxBytesPerTrigger``: the most record bytes a micro-batch reads, e.g. ``"64mb"`` or bytes."""
        return self._set("maxBytesPerTrigger", _size_option("maxBytesPerTrigger", size))

    def max_records_per_shard_per_trigger(self, records: int) -> KinesisSourceOptions:
        """``maxRecordsPerShardPerTrigger``: the most records a micro-batch reads from one shard, at least 1."""
        return self._set("maxRecordsPerShardPerTrigger", _int_option("maxRecordsPerShardPerTrigger", records))

    def shards_per_task(self, shards: int) -> KinesisSourceOptions:
        """``shardsPerTask``: shards prefetched in parallel by one Spark task, 1 to 10000 (default 5)."""
        return self._set("shardsPerTask", _int_option("shardsPerTask", shards))

    def shard_fetch_interval(self, interval: Duration) -> KinesisSourceOptions:
        """``shardFetchInterval``: how often to look for resharding (default 1s)."""
        return self._set("shardFetchInterval", _duration_option("shardFetchInterval", interval))

    def coalesce_threshold_block_size(self, size: int) -> KinesisSourceOptions:
        """``coalesceThresholdBlockSize``: average block size (bytes) below which blocks are coalesced."""
        return self._set("coalesceThresholdBlockSize", _int_option("coalesceThresholdBlockSize", size))

    def coalesce_bin_size(self, size: int) -> KinesisSourceOptions:
        """``coalesceBinSize``: approximate block size (bytes) after coalescing."""
        return self._set("coalesceBinSize", _int_option("coalesceBinSize", size))

    def max_shards_per_describe(self, shards: int) -> KinesisSourceOptions:
        """``maxShardsPerDescribe``: shards listed per ListShards call, 1 to 10000 (default 100)."""
        return self._set("maxShardsPerDescribe", _int_option("maxShardsPerDescribe", shards))

    # -- enhanced fan-out -----------------------------------------------------------------

    def consumer_mode(self, mode: str) -> KinesisSourceOptions:
        """``consumerMode``: ``"polling"`` (the default) or ``"efo"`` (enhanced fan-out)."""
        return self._set("consumerMode", _choice("consumerMode", mode, CONSUMER_MODES))

    def require_consumer_deregistration(self, required: bool) -> KinesisSourceOptions:
        """``requireConsumerDeregistration``: deregister the EFO consumer when the query stops."""
        _require_type("requireConsumerDeregistration", required, bool, "bool")
        return self._set("requireConsumerDeregistration", "true" if required else "false")

    def fail_on_data_loss(self, fail: bool) -> KinesisSourceOptions:
        """``failOnDataLoss``: fail the query when records it had to read were deleted by
        retention first (default); ``False`` logs it, counts ``dataLossEvents`` and goes on."""
        _require_type("failOnDataLoss", fail, bool, "bool")
        return self._set("failOnDataLoss", "true" if fail else "false")

    def out_of_range_user_records(self, policy: str) -> KinesisSourceOptions:
        """``outOfRangeUserRecords``: ``"keep"`` (the default) reads every user record of a KPL
        aggregate, also those whose hash key is outside the shard (mixed-key producers), except
        repeats their producer marked; ``"dropAfterSplit"`` also drops those a split explains
        (the KPL writes them again); ``"drop"`` is the KCL's filter and drops them all."""
        return self._set("outOfRangeUserRecords", _choice("outOfRangeUserRecords", policy, OUT_OF_RANGE_POLICIES))

    def record_decoder(self, decoder: str) -> KinesisSourceOptions:
        """``recordDecoder``: ``"connector"`` (the default) reads records with the connector's own
        decoders; ``"sdk"`` with the AWS SDK's unmarshalling (same rows and offsets, more CPU),
        the first thing to try when records are suspected of being read wrong. The Spark conf
        ``spark.sparkkinesis.recordDecoder`` sets it for every query of a session."""
        return self._set("recordDecoder", _choice("recordDecoder", decoder, RECORD_DECODERS))

    def stream_column_name(self, name: str) -> KinesisSourceOptions:
        """``streamColumnName``: the name of the column holding each record's stream (default
        ``"stream"``); ``"streamName"`` is what qubole's and awslabs' connectors call it."""
        _require_type("streamColumnName", name, str, "str")
        if not name.strip():
            raise ValueError("streamColumnName must be a column name, got an empty string")
        return self._set("streamColumnName", name.strip())

    def include_record_ids(self, include: bool) -> KinesisSourceOptions:
        """``includeRecordIds``: add a last column ``recordId`` (string), the id a writer with
        ``recordIds`` gave each record, the same for every copy at-least-once writing made of it
        (null for records without one); drop the repeats with
        ``dropDuplicatesWithinWatermark(["recordId"])``."""
        _require_type("includeRecordIds", include, bool, "bool")
        return self._set("includeRecordIds", "true" if include else "false")

    def consumer_name(self, names: NameList) -> KinesisSourceOptions:
        """``consumerName``: one EFO consumer name for all streams, or one per stream."""
        return self._set("consumerName", _name_list("consumerName", names))

    def consumer_name_prefix(self, prefix: str) -> KinesisSourceOptions:
        """``consumerNamePrefix``: prefix of registered consumer names; may be empty."""
        _require_type("consumerNamePrefix", prefix, str, "str")
        return self._set("consumerNamePrefix", prefix)

    def consumer_arn(self, arns: NameList) -> KinesisSourceOptions:
        """``consumerARN``: enhanced fan-out consumers registered elsewhere, one per stream, read
        with as they are (never registered nor deregistered by the query)."""
        return self._set("consumerARN", _name_list("consumerARN", arns))

    def consumer_refresh_interval(self, interval: Duration) -> KinesisSourceOptions:
        """``consumerRefreshInterval``: how often the EFO registration is checked, 1s to 1h (default 300s)."""
        option = "consumerRefreshInterval"
        text = _duration_option(option, interval)
        return self._set(option, text)

    # -- output ---------------------------------------------------------------------------

    def apply(self, reader: _Reader) -> _Reader:
        """Return ``reader.options(**self.to_dict())``.

        Works with any ``DataStreamReader`` or ``DataFrameReader``, classic or Spark Connect.
        """
        if not callable(getattr(reader, "options", None)):
            raise TypeError(f"apply() needs a DataStreamReader or DataFrameReader, got {type(reader).__name__}")
        return reader.options(**self._options)


def _require_type(option: str, value: Any, expected: type, described: str) -> None:
    if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
        raise TypeError(f"{option} must be a {described}, got {type(value).__name__}")


def _choice(option: str, value: Any, allowed: Sequence[str]) -> str:
    """One of `allowed`, matched case-insensitively, spelled as the registry spells it."""
    _require_type(option, value, str, "str")
    found = next((a for a in allowed if a.lower() == value.strip().lower()), None)
    if found is None:
        shown = " or ".join(repr(a) for a in allowed)
        raise ValueError(f"{option} must be {shown}, got {value!r}")
    return found


def _non_empty_str(option: str, value: Any) -> str:
    _require_type(option, value, str, "str")
    if not value.strip():
        raise ValueError(f"{option} must not be empty")
    return str(value)


def _int_option(option: str, value: Any) -> str:
    """An int within the option's bounds in the registry, as the string sent to the JVM."""
    _require_type(option, value, int, "int")
    facts = _registry.option(option)
    low = int(facts.min or 0)
    if facts.max is None:
        if value < low:
            raise ValueError(f"{option} must be an integer of at least {low}, got {value}")
    elif not low <= value <= int(facts.max):
        raise ValueError(f"{option} must be between {low} and {int(facts.max)}, got {value}")
    return str(int(value))


def _duration_option(option: str, value: Duration) -> str:
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


def _size_option(option: str, value: ByteSize) -> str:
    """A size above 0 and within the option's maximum in the registry, as the string sent to the JVM."""
    text, length = parse_byte_size(option, value)
    high = _registry.option(option).max
    if length <= 0 or (high is not None and length > high):
        limit = "" if high is None else f" and at most {_registry.shown_size(int(high))}"
        raise ValueError(f"{option} must be above 0{limit}, got {_shown(value)}")
    return text


def _name_list(option: str, names: Any) -> str:
    """Join one or more names with commas, the form the JVM splits."""
    parts: List[str]
    if isinstance(names, str):
        parts = [part.strip() for part in names.split(",")]
    elif isinstance(names, Sequence) and not isinstance(names, (bytes, bytearray)):
        parts = []
        for name in names:
            _require_type(option, name, str, "str or a sequence of str")
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


class _SupportsWriterOptions(Protocol):
    """What :meth:`KinesisSinkOptions.apply` needs: a DataFrameWriter or DataStreamWriter."""

    def options(self: _Writer, **options: str) -> _Writer: ...


_Writer = TypeVar("_Writer", bound=_SupportsWriterOptions)


class KinesisSinkOptions(_KinesisOptions):
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

    # -- where to write -------------------------------------------------------------------

    def stream_name(self, name: str) -> KinesisSinkOptions:
        """``streamName``: the one stream every row goes to.

        Leave it out to route each row by its ``stream`` column.
        """
        _require_type("streamName", name, str, "str")
        value = name.strip()
        if not _STREAM_NAME.fullmatch(value):
            raise ValueError(
                f"streamName must be one stream name of 1 to 128 letters, digits, '_', '.' or '-' "
                f"(to write to several streams, route rows by a 'stream' column), got {name!r}"
            )
        return self._set("streamName", value)

    # -- batching and retries -------------------------------------------------------------

    def max_records_per_put(self, records: int) -> KinesisSinkOptions:
        """``maxRecordsPerPut``: records per PutRecords call, 1 to 500 (default 500)."""
        return self._set("maxRecordsPerPut", _int_option("maxRecordsPerPut", records))

    def max_bytes_per_put(self, size: ByteSize) -> KinesisSinkOptions:
        """``maxBytesPerPut``: data plus partition keys per call, above 0 and at most 5mb (default 5mb)."""
        return self._set("maxBytesPerPut", _size_option("maxBytesPerPut", size))

    def max_in_flight_puts(self, calls: int) -> KinesisSinkOptions:
        """``maxInFlightPuts``: PutRecords calls one task keeps in flight, 1 to 64 (default 4)."""
        return self._set("maxInFlightPuts", _int_option("maxInFlightPuts", calls))

    def max_put_retries(self, retries: int) -> KinesisSinkOptions:
        """``maxPutRetries``: how often a refused record is sent again, 0 to 1000 (default 10)."""
        return self._set("maxPutRetries", _int_option("maxPutRetries", retries))

    def put_retry_backoff(self, backoff: Duration) -> KinesisSinkOptions:
        """``putRetryBackoff``: wait before the first retry, doubled each retry (default 100ms)."""
        return self._set("putRetryBackoff", _duration_option("putRetryBackoff", backoff))

    def max_put_retry_backoff(self, backoff: Duration) -> KinesisSinkOptions:
        """``maxPutRetryBackoff``: longest wait between two retries (default 5s)."""
        return self._set("maxPutRetryBackoff", _duration_option("maxPutRetryBackoff", backoff))

    def max_put_linger(self, linger: Duration) -> KinesisSinkOptions:
        """``maxPutLinger``: longest a record waits for its PutRecords call to fill before it is
        sent anyway, 1ms to 10m (default 50ms); keeps latency low in real-time mode.
        :func:`~pyspark_kinesis.foreach_kinesis` defaults to 5ms."""
        return self._set("maxPutLinger", _duration_option("maxPutLinger", linger))

    # -- packing and order ----------------------------------------------------------------

    def aggregation(self, mode: str) -> KinesisSinkOptions:
        """``aggregation``: ``"none"`` (one Kinesis record per row) or ``"kpl"`` (default ``none``).

        ``"kpl"`` packs the rows bound for one shard into KPL aggregates of up to 1 MiB, which
        this connector, the KCL and the Databricks Runtime split again: far fewer Kinesis
        records for small rows. The write then also needs ``kinesis:ListShards``.
        """
        return self._set("aggregation", _choice("aggregation", mode, AGGREGATIONS))

    def order_per_key(self, ordered: bool) -> KinesisSinkOptions:
        """``orderPerKey``: keep each partition key's records in the order written (default true).

        ``False`` lets one key's records share PutRecords calls and overtake each other on
        retries: more records per second for a few busy keys without aggregation.
        """
        _require_type("orderPerKey", ordered, bool, "bool")
        return self._set("orderPerKey", "true" if ordered else "false")

    def record_ids(self, stamped: bool) -> KinesisSinkOptions:
        """``recordIds``: give every row an id, the same each time Spark sends the row again
        (default false), read back by the source's ``includeRecordIds``.

        The id is carried as a KPL tag, so every record is put as a KPL aggregate: readers that
        do not split aggregates (Firehose, plain GetRecords) see the aggregate's bytes.
        """
        _require_type("recordIds", stamped, bool, "bool")
        return self._set("recordIds", "true" if stamped else "false")

    # -- output ---------------------------------------------------------------------------

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
