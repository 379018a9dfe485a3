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
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone
from collections.abc import Mapping
from typing import Any, Dict, List, Optional, Protocol, Tuple, TypeVar, Union

from pyspark_kinesis._units import ByteSize, Duration, parse_byte_size, parse_duration

__all__ = [
    "KinesisSinkOptions",
    "KinesisSourceOptions",
    "SINK_OPTION_NAMES",
    "SOURCE_OPTION_NAMES",
    "SECRET_OPTION_NAMES",
]

SOURCE_OPTION_NAMES: Tuple[str, ...] = (
    "streamName",
    "region",
    "endpoint",
    "initialPosition",
    "endingPosition",
    "maxRecordsPerFetch",
    "maxFetchRate",
    "minFetchPeriod",
    "maxFetchDuration",
    "fetchBufferSize",
    "shardsPerTask",
    "shardFetchInterval",
    "awsAccessKey",
    "awsSecretKey",
    "awsSessionToken",
    "roleArn",
    "roleExternalId",
    "roleSessionName",
    "stsEndpoint",
    "coalesceThresholdBlockSize",
    "coalesceBinSize",
    "consumerMode",
    "requireConsumerDeregistration",
    "maxShardsPerDescribe",
    "consumerName",
    "consumerNamePrefix",
    "consumerRefreshInterval",
)
"""Every option name :class:`KinesisSourceOptions` can produce, spelled as the JVM reads it."""

SINK_OPTION_NAMES: Tuple[str, ...] = (
    "streamName",
    "region",
    "endpoint",
    "awsAccessKey",
    "awsSecretKey",
    "awsSessionToken",
    "roleArn",
    "roleExternalId",
    "roleSessionName",
    "stsEndpoint",
    "maxRecordsPerPut",
    "maxBytesPerPut",
    "maxInFlightPuts",
    "maxPutRetries",
    "putRetryBackoff",
    "maxPutRetryBackoff",
    "maxPutLinger",
)
"""Every option name :class:`KinesisSinkOptions` can produce, spelled as the JVM reads it."""

SECRET_OPTION_NAMES: frozenset[str] = frozenset({"awsAccessKey", "awsSecretKey", "awsSessionToken"})
"""Options whose values are never shown by ``repr()`` or in error messages."""

NameList = Union[str, Sequence[str]]
"""One name, a comma-separated string of names, or a sequence of names."""

INITIAL_POSITIONS = ("latest", "trim_horizon", "earliest")

# A datetime is sent in UTC with an explicit pattern, so the JVM's parse cannot depend on its
# default time zone or locale. The pattern means the same to SimpleDateFormat and
# DateTimeFormatter.
AT_TIMESTAMP_FORMAT = "yyyy-MM-dd'T'HH:mm:ss.SSSX"

MAX_FETCH_RATE_MB_PER_S = 2.0
MIN_FETCH_PERIOD = timedelta(milliseconds=200)
# The longest minFetchPeriod, maxFetchDuration and shardFetchInterval the JVM accepts.
MAX_INTERVAL = timedelta(hours=1)
MAX_SHARDS_PER_DESCRIBE = 10_000
MAX_CONSUMER_REFRESH_INTERVAL = timedelta(seconds=3600)
CONSUMER_MODES = ("polling", "efo")

_REDACTED = "*********(redacted)"

# The Kinesis limits of one PutRecords call, and the sink's own bounds.
MAX_RECORDS_PER_PUT = 500
MAX_BYTES_PER_PUT = 5 * 1024 * 1024
MAX_IN_FLIGHT_PUTS = 64
MAX_PUT_RETRIES = 1000
MAX_PUT_RETRY_BACKOFF = timedelta(minutes=10)
_STREAM_NAME = re.compile(r"[a-zA-Z0-9_.-]{1,128}")


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

    # -- output ---------------------------------------------------------------------------

    def to_dict(self) -> Dict[str, str]:
        """The options set so far, option name -> string value (secrets included)."""
        return dict(self._options)

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{name}={_REDACTED if name in SECRET_OPTION_NAMES else value!r}"
            for name, value in self._options.items()
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
            raise TypeError(
                f"initialPosition at_timestamp must be a datetime or str, got {type(ts).__name__}"
            )
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
        """``maxRecordsPerFetch``: records asked for per GetRecords call (default 10000)."""
        return self._set("maxRecordsPerFetch", str(_positive_int("maxRecordsPerFetch", records)))

    def max_fetch_rate(self, mb_per_second: float) -> KinesisSourceOptions:
        """``maxFetchRate``: prefetch rate per shard in MB/s, above 0 and at most 2.0 (default 1.0)."""
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
        text, length = parse_duration("minFetchPeriod", period)
        if length < MIN_FETCH_PERIOD:
            raise ValueError(
                f"minFetchPeriod must be at least 200ms (Kinesis allows 5 GetRecords calls per "
                f"second per shard), got {_shown(period)}"
            )
        if length > MAX_INTERVAL:
            raise ValueError(f"minFetchPeriod must be at most 1h, got {_shown(period)}")
        return self._set("minFetchPeriod", text)

    def max_fetch_duration(self, duration: Duration) -> KinesisSourceOptions:
        """``maxFetchDuration``: how long a prefetch task buffers before its data is offered (default 10s)."""
        return self._set("maxFetchDuration", _positive_duration("maxFetchDuration", duration))

    def fetch_buffer_size(self, size: ByteSize) -> KinesisSourceOptions:
        """``fetchBufferSize``: data buffered for the next trigger, e.g. ``"10mb"`` or bytes (default 20gb)."""
        text, length = parse_byte_size("fetchBufferSize", size)
        if length <= 0:
            raise ValueError(f"fetchBufferSize must be positive, got {_shown(size)}")
        return self._set("fetchBufferSize", text)

    def shards_per_task(self, shards: int) -> KinesisSourceOptions:
        """``shardsPerTask``: shards prefetched in parallel by one Spark task (default 5)."""
        return self._set("shardsPerTask", str(_positive_int("shardsPerTask", shards)))

    def shard_fetch_interval(self, interval: Duration) -> KinesisSourceOptions:
        """``shardFetchInterval``: how often to look for resharding (default 1s)."""
        return self._set("shardFetchInterval", _positive_duration("shardFetchInterval", interval))

    def coalesce_threshold_block_size(self, size: int) -> KinesisSourceOptions:
        """``coalesceThresholdBlockSize``: average block size (bytes) below which blocks are coalesced."""
        option = "coalesceThresholdBlockSize"
        return self._set(option, str(_positive_int(option, size)))

    def coalesce_bin_size(self, size: int) -> KinesisSourceOptions:
        """``coalesceBinSize``: approximate block size (bytes) after coalescing."""
        return self._set("coalesceBinSize", str(_positive_int("coalesceBinSize", size)))

    def max_shards_per_describe(self, shards: int) -> KinesisSourceOptions:
        """``maxShardsPerDescribe``: shards listed per ListShards call, 1 to 10000 (default 100)."""
        option = "maxShardsPerDescribe"
        value = _positive_int(option, shards)
        if value > MAX_SHARDS_PER_DESCRIBE:
            raise ValueError(f"{option} must be between 1 and {MAX_SHARDS_PER_DESCRIBE}, got {shards}")
        return self._set(option, str(value))

    # -- enhanced fan-out -----------------------------------------------------------------

    def consumer_mode(self, mode: str) -> KinesisSourceOptions:
        """``consumerMode``: ``"polling"`` (the default) or ``"efo"`` (enhanced fan-out)."""
        _require_type("consumerMode", mode, str, "str")
        value = mode.strip().lower()
        if value not in CONSUMER_MODES:
            raise ValueError(f"consumerMode must be 'polling' or 'efo', got {mode!r}")
        return self._set("consumerMode", value)

    def require_consumer_deregistration(self, required: bool) -> KinesisSourceOptions:
        """``requireConsumerDeregistration``: deregister the EFO consumer when the query stops."""
        _require_type("requireConsumerDeregistration", required, bool, "bool")
        return self._set("requireConsumerDeregistration", "true" if required else "false")

    def consumer_name(self, names: NameList) -> KinesisSourceOptions:
        """``consumerName``: one EFO consumer name for all streams, or one per stream."""
        return self._set("consumerName", _name_list("consumerName", names))

    def consumer_name_prefix(self, prefix: str) -> KinesisSourceOptions:
        """``consumerNamePrefix``: prefix of registered consumer names; may be empty."""
        _require_type("consumerNamePrefix", prefix, str, "str")
        return self._set("consumerNamePrefix", prefix)

    def consumer_refresh_interval(self, interval: Duration) -> KinesisSourceOptions:
        """``consumerRefreshInterval``: how often the EFO registration is checked, at most 3600s."""
        option = "consumerRefreshInterval"
        text, length = parse_duration(option, interval)
        if not timedelta(0) < length <= MAX_CONSUMER_REFRESH_INTERVAL:
            raise ValueError(
                f"{option} must be above 0 and at most 3600s, got {_shown(interval)}"
            )
        return self._set(option, text)

    # -- output ---------------------------------------------------------------------------

    def apply(self, reader: _Reader) -> _Reader:
        """Return ``reader.options(**self.to_dict())``.

        Works with any ``DataStreamReader`` or ``DataFrameReader``, classic or Spark Connect.
        """
        if not callable(getattr(reader, "options", None)):
            raise TypeError(
                f"apply() needs a DataStreamReader or DataFrameReader, got {type(reader).__name__}"
            )
        return reader.options(**self._options)


def _require_type(option: str, value: Any, expected: type, described: str) -> None:
    if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
        raise TypeError(f"{option} must be a {described}, got {type(value).__name__}")


def _non_empty_str(option: str, value: Any) -> str:
    _require_type(option, value, str, "str")
    if not value.strip():
        raise ValueError(f"{option} must not be empty")
    return str(value)


def _positive_int(option: str, value: Any) -> int:
    _require_type(option, value, int, "int")
    if value <= 0:
        raise ValueError(f"{option} must be a positive integer, got {value}")
    return int(value)


def _positive_duration(option: str, value: Duration) -> str:
    text, length = parse_duration(option, value)
    if not timedelta(0) < length <= MAX_INTERVAL:
        raise ValueError(f"{option} must be a positive duration of at most 1h, got {_shown(value)}")
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
        option = "maxRecordsPerPut"
        value = _positive_int(option, records)
        if value > MAX_RECORDS_PER_PUT:
            raise ValueError(
                f"{option} must be between 1 and {MAX_RECORDS_PER_PUT} (the Kinesis limit), got {records}"
            )
        return self._set(option, str(value))

    def max_bytes_per_put(self, size: ByteSize) -> KinesisSinkOptions:
        """``maxBytesPerPut``: data plus partition keys per call, above 0 and at most 5mb (default 5mb)."""
        option = "maxBytesPerPut"
        text, length = parse_byte_size(option, size)
        if not 0 < length <= MAX_BYTES_PER_PUT:
            raise ValueError(
                f"{option} must be above 0 and at most 5mb (the Kinesis limit of a PutRecords "
                f"call), got {_shown(size)}"
            )
        return self._set(option, text)

    def max_in_flight_puts(self, calls: int) -> KinesisSinkOptions:
        """``maxInFlightPuts``: PutRecords calls one task keeps in flight, 1 to 64 (default 4)."""
        option = "maxInFlightPuts"
        value = _positive_int(option, calls)
        if value > MAX_IN_FLIGHT_PUTS:
            raise ValueError(f"{option} must be between 1 and {MAX_IN_FLIGHT_PUTS}, got {calls}")
        return self._set(option, str(value))

    def max_put_retries(self, retries: int) -> KinesisSinkOptions:
        """``maxPutRetries``: how often a refused record is sent again, 0 to 1000 (default 10)."""
        option = "maxPutRetries"
        _require_type(option, retries, int, "int")
        if not 0 <= retries <= MAX_PUT_RETRIES:
            raise ValueError(f"{option} must be between 0 and {MAX_PUT_RETRIES}, got {retries}")
        return self._set(option, str(retries))

    def put_retry_backoff(self, backoff: Duration) -> KinesisSinkOptions:
        """``putRetryBackoff``: wait before the first retry, doubled each retry (default 100ms)."""
        return self._set("putRetryBackoff", _backoff("putRetryBackoff", backoff))

    def max_put_retry_backoff(self, backoff: Duration) -> KinesisSinkOptions:
        """``maxPutRetryBackoff``: longest wait between two retries (default 5s)."""
        return self._set("maxPutRetryBackoff", _backoff("maxPutRetryBackoff", backoff))

    def max_put_linger(self, linger: Duration) -> KinesisSinkOptions:
        """``maxPutLinger``: longest a record waits for its PutRecords call to fill before it is
        sent anyway, 1ms to 10m (default 50ms); keeps latency low in real-time mode."""
        return self._set("maxPutLinger", _backoff("maxPutLinger", linger))

    # -- output ---------------------------------------------------------------------------

    def apply(self, writer: _Writer) -> _Writer:
        """Return ``writer.options(**self.to_dict())``.

        Works with any ``DataFrameWriter`` or ``DataStreamWriter``, classic or Spark Connect.
        """
        if not callable(getattr(writer, "options", None)):
            raise TypeError(
                f"apply() needs a DataFrameWriter or DataStreamWriter, got {type(writer).__name__}"
            )
        return writer.options(**self._options)


def _backoff(option: str, value: Duration) -> str:
    text, length = parse_duration(option, value)
    if not timedelta(milliseconds=1) <= length <= MAX_PUT_RETRY_BACKOFF:
        raise ValueError(f"{option} must be from 1ms to 10m, got {_shown(value)}")
    return text

def _sequence_positions(option: str, positions: Mapping[str, Mapping[str, str]], kind: str) -> str:
    """Offset JSON (version 1) with one position of type ``kind`` per named shard."""
    if not isinstance(positions, Mapping):
        raise TypeError(f"{option} positions must be a mapping of stream to {{shardId: sequenceNumber}}, "
                        f"got {type(positions).__name__}")
    shards: Dict[str, Dict[str, Dict[str, str]]] = {}
    for stream, by_shard in positions.items():
        if not isinstance(stream, str) or not isinstance(by_shard, Mapping):
            raise TypeError(f"{option} positions must map stream names to {{shardId: sequenceNumber}}")
        for shard_id, seq in by_shard.items():
            if not isinstance(shard_id, str) or not isinstance(seq, str) or not seq.isdigit():
                raise ValueError(f"{option}: shard {shard_id!r} of {stream!r} needs a decimal sequence number "
                                 f"string, got {seq!r}")
            shards.setdefault(stream, {})[shard_id] = {"type": kind, "seq": seq}
    return json.dumps({"version": 1, "shards": shards}, sort_keys=True)
