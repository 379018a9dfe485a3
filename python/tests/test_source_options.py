# SPDX-License-Identifier: Apache-2.0
"""KinesisSourceOptions: the option names and values a user gets, and the errors for bad ones."""

import json
from datetime import datetime, timedelta, timezone

import pytest

from pyspark_kinesis import SOURCE_OPTION_NAMES, KinesisSourceOptions

PDT = timezone(timedelta(hours=-7))


def opts() -> KinesisSourceOptions:
    return KinesisSourceOptions()


# (method, argument, option name, expected string value): one row per option at least.
CASES = [
    ("stream_name", "orders", "streamName", "orders"),
    ("stream_name", ["orders", "payments"], "streamName", "orders,payments"),
    ("stream_name", ("orders",), "streamName", "orders"),
    ("stream_name", "orders, payments", "streamName", "orders,payments"),
    (
        "stream_arn",
        ["arn:aws:kinesis:us-east-1:123456789012:stream/a", "arn:aws:kinesis:us-east-1:123456789012:stream/b"],
        "streamARN",
        "arn:aws:kinesis:us-east-1:123456789012:stream/a,arn:aws:kinesis:us-east-1:123456789012:stream/b",
    ),
    ("region", "us-east-1", "region", "us-east-1"),
    ("endpoint", "http://localhost:4567", "endpoint", "http://localhost:4567"),
    ("initial_position", "latest", "initialPosition", "latest"),
    ("initial_position", "TRIM_HORIZON", "initialPosition", "trim_horizon"),
    ("initial_position", "earliest", "initialPosition", "earliest"),
    ("max_records_per_fetch", 500, "maxRecordsPerFetch", "500"),
    ("max_fetch_rate", 1.5, "maxFetchRate", "1.5"),
    ("max_fetch_rate", 2, "maxFetchRate", "2.0"),
    ("min_fetch_period", "400ms", "minFetchPeriod", "400ms"),
    ("min_fetch_period", "1S", "minFetchPeriod", "1s"),
    ("min_fetch_period", timedelta(milliseconds=250), "minFetchPeriod", "250ms"),
    ("min_fetch_period", timedelta(seconds=2), "minFetchPeriod", "2000ms"),
    ("max_fetch_duration", "10s", "maxFetchDuration", "10s"),
    ("max_fetch_duration", timedelta(minutes=1), "maxFetchDuration", "60000ms"),
    ("fetch_buffer_size", "20gb", "fetchBufferSize", "20gb"),
    ("fetch_buffer_size", "10MB", "fetchBufferSize", "10mb"),
    ("fetch_buffer_size", "512kb", "fetchBufferSize", "512kb"),
    ("fetch_buffer_size", "100b", "fetchBufferSize", "100b"),
    ("fetch_buffer_size", 1048576, "fetchBufferSize", "1048576b"),
    ("shards_per_task", 5, "shardsPerTask", "5"),
    ("max_records_per_trigger", 10000, "maxRecordsPerTrigger", "10000"),
    ("max_bytes_per_trigger", "64mb", "maxBytesPerTrigger", "64mb"),
    ("max_records_per_shard_per_trigger", 500, "maxRecordsPerShardPerTrigger", "500"),
    ("shard_fetch_interval", "2m", "shardFetchInterval", "2m"),
    ("shard_fetch_interval", timedelta(seconds=1), "shardFetchInterval", "1000ms"),
    ("aws_access_key", "AKIAEXAMPLE", "awsAccessKey", "AKIAEXAMPLE"),
    ("aws_secret_key", "secret/key", "awsSecretKey", "secret/key"),
    ("aws_session_token", "token", "awsSessionToken", "token"),
    ("role_arn", "arn:aws:iam::123456789012:role/r", "roleArn", "arn:aws:iam::123456789012:role/r"),
    ("role_external_id", "ext-1", "roleExternalId", "ext-1"),
    ("role_session_name", "spark", "roleSessionName", "spark"),
    ("sts_endpoint", "http://localhost:5000", "stsEndpoint", "http://localhost:5000"),
    ("coalesce_threshold_block_size", 10_000_000, "coalesceThresholdBlockSize", "10000000"),
    ("coalesce_bin_size", 128_000_000, "coalesceBinSize", "128000000"),
    ("consumer_mode", "efo", "consumerMode", "efo"),
    ("consumer_mode", "Polling", "consumerMode", "polling"),
    ("require_consumer_deregistration", True, "requireConsumerDeregistration", "true"),
    ("require_consumer_deregistration", False, "requireConsumerDeregistration", "false"),
    ("fail_on_data_loss", False, "failOnDataLoss", "false"),
    ("fail_on_data_loss", True, "failOnDataLoss", "true"),
    ("out_of_range_user_records", "DROPAFTERSPLIT", "outOfRangeUserRecords", "dropAfterSplit"),
    ("out_of_range_user_records", " keep ", "outOfRangeUserRecords", "keep"),
    ("record_decoder", "SDK", "recordDecoder", "sdk"),
    ("stream_column_name", "streamName", "streamColumnName", "streamName"),
    ("include_record_ids", True, "includeRecordIds", "true"),
    ("max_shards_per_describe", 1, "maxShardsPerDescribe", "1"),
    ("max_shards_per_describe", 10_000, "maxShardsPerDescribe", "10000"),
    ("consumer_name", "query-1", "consumerName", "query-1"),
    ("consumer_name", ["c1", "c2"], "consumerName", "c1,c2"),
    ("consumer_name_prefix", "team_", "consumerNamePrefix", "team_"),
    ("consumer_name_prefix", "", "consumerNamePrefix", ""),
    (
        "consumer_arn",
        "arn:aws:kinesis:us-east-1:123456789012:stream/s/consumer/c:1",
        "consumerARN",
        "arn:aws:kinesis:us-east-1:123456789012:stream/s/consumer/c:1",
    ),
    ("profile", "rotating", "profile", "rotating"),
    ("aws_credentials_provider", "com.example.Provider", "awsCredentialsProvider", "com.example.Provider"),
    ("aws_credentials_provider_secret", "p", "awsCredentialsProviderSecret", "p"),
    ("proxy_host", "proxy.internal", "proxyHost", "proxy.internal"),
    ("proxy_port", 3128, "proxyPort", "3128"),
    ("proxy_username", "reader", "proxyUsername", "reader"),
    ("proxy_password", "pw", "proxyPassword", "pw"),
    ("non_proxy_hosts", ["*.local", "10.*"], "nonProxyHosts", "*.local,10.*"),
    ("consumer_refresh_interval", "300s", "consumerRefreshInterval", "300s"),
    ("consumer_refresh_interval", "1h", "consumerRefreshInterval", "1h"),
    ("consumer_refresh_interval", timedelta(minutes=5), "consumerRefreshInterval", "300000ms"),
]


@pytest.mark.parametrize("method,argument,option,expected", CASES)
def test_each_method_sets_its_option(method, argument, option, expected):
    built = getattr(opts(), method)(argument)
    assert built.to_dict() == {option: expected}


def test_source_option_names_lists_exactly_the_options_the_builder_produces():
    produced = {option for _, _, option, _ in CASES}
    produced.add("initialPosition")  # also set by initial_position_at_timestamp
    produced.add("endingPosition")  # set by ending_position_at_sequences
    assert set(SOURCE_OPTION_NAMES) == produced
    assert len(SOURCE_OPTION_NAMES) == len(set(SOURCE_OPTION_NAMES))


def test_every_public_setter_is_covered():
    setters = {
        name for name in dir(KinesisSourceOptions) if not name.startswith("_") and name not in {"to_dict", "apply"}
    }
    assert setters == {method for method, _, _, _ in CASES} | {
        "initial_position_at_timestamp",
        "initial_position_at_sequences",
        "ending_position_at_sequences",
    }


def test_methods_chain_and_a_later_value_replaces_an_earlier_one():
    built = opts().stream_name("a").region("eu-west-1").stream_name(["b", "c"])
    assert built.to_dict() == {"streamName": "b,c", "region": "eu-west-1"}


def test_to_dict_returns_a_copy():
    built = opts().region("us-east-1")
    built.to_dict()["region"] = "changed"
    assert built.to_dict() == {"region": "us-east-1"}


# -- initialPosition at_timestamp ---------------------------------------------------------


def test_aware_datetime_is_sent_in_utc_with_an_explicit_format():
    ts = datetime(2020, 6, 25, 10, 23, 45, 678901, tzinfo=PDT)
    value = opts().initial_position_at_timestamp(ts).to_dict()["initialPosition"]
    assert json.loads(value) == {
        "at_timestamp": "2020-06-25T17:23:45.678Z",
        "format": "yyyy-MM-dd'T'HH:mm:ss.SSSX",
    }


def test_utc_datetime_keeps_its_time():
    ts = datetime(2024, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
    value = json.loads(opts().initial_position_at_timestamp(ts).to_dict()["initialPosition"])
    assert value["at_timestamp"] == "2024-01-02T03:04:05.000Z"


def test_naive_datetime_is_rejected_with_a_hint_to_pass_a_timezone():
    with pytest.raises(ValueError, match="timezone"):
        opts().initial_position_at_timestamp(datetime(2020, 6, 25, 10, 23, 45))


def test_string_timestamp_is_passed_as_given_for_the_java_default_format():
    value = opts().initial_position_at_timestamp("06/25/2020 10:23:45 PDT").to_dict()
    assert json.loads(value["initialPosition"]) == {"at_timestamp": "06/25/2020 10:23:45 PDT"}


def test_string_timestamp_with_explicit_format():
    value = opts().initial_position_at_timestamp("2020-06-25 10:23", fmt="yyyy-MM-dd HH:mm")
    assert json.loads(value.to_dict()["initialPosition"]) == {
        "at_timestamp": "2020-06-25 10:23",
        "format": "yyyy-MM-dd HH:mm",
    }


def test_format_with_a_datetime_is_rejected():
    with pytest.raises(ValueError, match="fmt"):
        opts().initial_position_at_timestamp(datetime.now(timezone.utc), fmt="yyyy")


def test_at_timestamp_through_initial_position_points_to_the_helper():
    with pytest.raises(ValueError, match="initial_position_at_timestamp"):
        opts().initial_position("at_timestamp")


# -- errors -------------------------------------------------------------------------------

TYPE_ERRORS = [
    ("stream_name", 42, "int"),
    ("stream_name", ["a", 1], "int"),
    ("stream_name", b"orders", "bytes"),
    ("region", None, "NoneType"),
    ("endpoint", 8080, "int"),
    ("initial_position", 0, "int"),
    ("initial_position_at_timestamp", 1593105825, "int"),
    ("max_records_per_fetch", "100", "str"),
    ("max_records_per_fetch", 1.0, "float"),
    ("max_records_per_fetch", True, "bool"),
    ("max_fetch_rate", "1.0", "str"),
    ("max_fetch_rate", True, "bool"),
    ("min_fetch_period", 400, "int"),
    ("max_fetch_duration", 10.0, "float"),
    ("fetch_buffer_size", 1.5, "float"),
    ("fetch_buffer_size", True, "bool"),
    ("shards_per_task", "5", "str"),
    ("shard_fetch_interval", None, "NoneType"),
    ("aws_access_key", 1, "int"),
    ("aws_secret_key", None, "NoneType"),
    ("aws_session_token", b"t", "bytes"),
    ("role_arn", 1, "int"),
    ("role_external_id", 1, "int"),
    ("role_session_name", 1, "int"),
    ("sts_endpoint", 1, "int"),
    ("coalesce_threshold_block_size", "1", "str"),
    ("coalesce_bin_size", 1.0, "float"),
    ("consumer_mode", None, "NoneType"),
    ("require_consumer_deregistration", "true", "str"),
    ("require_consumer_deregistration", 1, "int"),
    ("fail_on_data_loss", "false", "str"),
    ("max_shards_per_describe", "100", "str"),
    ("consumer_name", {"c": 1}, "dict"),
    ("consumer_name_prefix", None, "NoneType"),
    ("consumer_refresh_interval", 300, "int"),
    ("include_record_ids", 1, "int"),
]


@pytest.mark.parametrize("method,argument,type_name", TYPE_ERRORS)
def test_wrong_type_raises_type_error_naming_the_type(method, argument, type_name):
    with pytest.raises(TypeError, match=rf"got {type_name}\b"):
        getattr(opts(), method)(argument)


VALUE_ERRORS = [
    ("stream_name", "", "streamName"),
    ("stream_name", [], "streamName"),
    ("stream_name", "a,,b", "streamName"),
    ("stream_name", ["a,b"], "streamName"),
    ("region", "  ", "region"),
    ("initial_position", "oldest", "initialPosition"),
    ("max_records_per_fetch", 0, "maxRecordsPerFetch"),
    ("max_fetch_rate", 0.0, "maxFetchRate"),
    ("max_fetch_rate", 2.5, "maxFetchRate"),
    ("max_fetch_rate", float("nan"), "maxFetchRate"),
    ("min_fetch_period", "199ms", "minFetchPeriod"),
    ("min_fetch_period", timedelta(milliseconds=100), "minFetchPeriod"),
    ("min_fetch_period", "400", "minFetchPeriod"),
    ("min_fetch_period", "1.5s", "minFetchPeriod"),
    ("min_fetch_period", "400 ms", "minFetchPeriod"),
    ("min_fetch_period", "-400ms", "minFetchPeriod"),
    ("min_fetch_period", timedelta(microseconds=250_500), "minFetchPeriod"),
    ("max_fetch_duration", "0s", "maxFetchDuration"),
    ("max_fetch_duration", "10 seconds", "maxFetchDuration"),
    ("max_fetch_duration", timedelta(seconds=-1), "maxFetchDuration"),
    ("fetch_buffer_size", "20", "fetchBufferSize"),
    ("fetch_buffer_size", "1.5gb", "fetchBufferSize"),
    ("fetch_buffer_size", "20gib", "fetchBufferSize"),
    ("fetch_buffer_size", 0, "fetchBufferSize"),
    ("fetch_buffer_size", -1, "fetchBufferSize"),
    ("shards_per_task", 0, "shardsPerTask"),
    ("max_records_per_trigger", 0, "maxRecordsPerTrigger"),
    ("max_bytes_per_trigger", 0, "maxBytesPerTrigger"),
    ("shard_fetch_interval", "1x", "shardFetchInterval"),
    ("aws_secret_key", "", "awsSecretKey"),
    ("coalesce_threshold_block_size", -1, "coalesceThresholdBlockSize"),
    ("coalesce_bin_size", 0, "coalesceBinSize"),
    ("consumer_mode", "fanout", "consumerMode"),
    ("max_shards_per_describe", 0, "maxShardsPerDescribe"),
    ("max_shards_per_describe", 10_001, "maxShardsPerDescribe"),
    ("consumer_name", "", "consumerName"),
    ("consumer_refresh_interval", "3601s", "consumerRefreshInterval"),
    ("consumer_refresh_interval", "2h", "consumerRefreshInterval"),
    ("consumer_refresh_interval", "0s", "consumerRefreshInterval"),
]


@pytest.mark.parametrize("method,argument,option", VALUE_ERRORS)
def test_out_of_range_value_raises_value_error_naming_the_option(method, argument, option):
    with pytest.raises(ValueError, match=option):
        getattr(opts(), method)(argument)


def test_value_errors_say_what_is_allowed():
    with pytest.raises(ValueError, match="at least 200ms"):
        opts().min_fetch_period("100ms")
    with pytest.raises(ValueError, match="at most 2.0"):
        opts().max_fetch_rate(3)
    with pytest.raises(ValueError, match="latest, trim_horizon, earliest"):
        opts().initial_position("first")
    with pytest.raises(ValueError, match="'polling' or 'efo'"):
        opts().consumer_mode("push")
    with pytest.raises(ValueError, match="between 1 and 10000"):
        opts().max_shards_per_describe(20_000)
    with pytest.raises(ValueError, match=r"'400ms'.*got '400'"):
        opts().min_fetch_period("400")
    with pytest.raises(ValueError, match=r"'10mb'.*got '20'"):
        opts().fetch_buffer_size("20")
    with pytest.raises(ValueError, match="minFetchPeriod must be at most 1h"):
        opts().min_fetch_period("2h")
    with pytest.raises(ValueError, match="maxFetchDuration must be a positive duration of at most 1h"):
        opts().max_fetch_duration(timedelta(hours=2))
    with pytest.raises(ValueError, match="shardFetchInterval must be a positive duration of at most 1h"):
        opts().shard_fetch_interval("61m")


def test_a_failed_call_leaves_the_options_unchanged():
    built = opts().min_fetch_period("400ms")
    with pytest.raises(ValueError):
        built.min_fetch_period("100ms")
    assert built.to_dict() == {"minFetchPeriod": "400ms"}


def test_duration_units_spark_accepts():
    for text in ["200000us", "200ms", "1s", "1m", "1min", "1h"]:
        assert opts().max_fetch_duration(text).to_dict() == {"maxFetchDuration": text}
    # Days are understood, and refused for being over the 1h bound rather than as a bad unit.
    with pytest.raises(ValueError, match="at most 1h, got '1d'"):
        opts().max_fetch_duration("1d")


# -- secrets ------------------------------------------------------------------------------


def test_repr_redacts_secrets_and_shows_the_rest():
    built = (
        opts()
        .stream_name("orders")
        .aws_access_key("AKIAVISIBLE")
        .aws_secret_key("s3cr3t-value")
        .aws_session_token("t0ken-value")
    )
    shown = repr(built)
    for secret in ["AKIAVISIBLE", "s3cr3t-value", "t0ken-value"]:
        assert secret not in shown
        assert secret not in str(built)
    assert "streamName='orders'" in shown
    assert "awsSecretKey=" in shown and "redacted" in shown


def test_errors_never_echo_a_secret():
    with pytest.raises(TypeError) as error:
        opts().aws_secret_key(["s3cr3t-value"])  # type: ignore[arg-type]
    assert "s3cr3t-value" not in str(error.value)


# -- apply ----------------------------------------------------------------------------------


class RecordingReader:
    """Stands in for DataStreamReader / DataFrameReader: options() returns the reader."""

    def __init__(self):
        self.options_set = {}

    def options(self, **options):
        self.options_set.update(options)
        return self


def test_apply_passes_every_option_to_the_reader_and_returns_it():
    reader = RecordingReader()
    built = opts().stream_name("orders").region("us-east-1").shards_per_task(2)
    assert built.apply(reader) is reader
    assert reader.options_set == {"streamName": "orders", "region": "us-east-1", "shardsPerTask": "2"}


def test_apply_rejects_something_that_is_not_a_reader():
    with pytest.raises(TypeError, match="got dict"):
        opts().apply({})  # type: ignore[type-var]


def test_initial_and_ending_positions_at_sequences_are_offset_json():
    import json

    from pyspark_kinesis import KinesisSourceOptions

    opts = (
        KinesisSourceOptions()
        .initial_position_at_sequences({"s": {"shardId-000000000000": "4959"}})
        .ending_position_at_sequences({"s": {"shardId-000000000000": "4960"}})
        .to_dict()
    )
    assert json.loads(opts["initialPosition"]) == {
        "version": 1,
        "shards": {"s": {"shardId-000000000000": {"type": "at", "seq": "4959"}}},
    }
    assert json.loads(opts["endingPosition"])["shards"]["s"]["shardId-000000000000"] == {"type": "after", "seq": "4960"}


def test_positions_need_decimal_sequence_numbers():
    import pytest

    from pyspark_kinesis import KinesisSourceOptions

    with pytest.raises(ValueError, match="initialPosition"):
        KinesisSourceOptions().initial_position_at_sequences({"s": {"shardId-0": "latest"}})
    with pytest.raises(TypeError, match="endingPosition"):
        KinesisSourceOptions().ending_position_at_sequences(["s"])  # type: ignore[arg-type]
