# SPDX-License-Identifier: Apache-2.0
"""KinesisSinkOptions: the option names and values a user gets, and the errors for bad ones."""

from datetime import timedelta

import pytest

from pyspark_kinesis import SINK_OPTION_NAMES, SOURCE_OPTION_NAMES, KinesisSinkOptions


def opts() -> KinesisSinkOptions:
    return KinesisSinkOptions()


# (method, argument, option name, expected string value): one row per option at least.
CASES = [
    ("stream_name", "orders", "streamName", "orders"),
    ("stream_name", " orders ", "streamName", "orders"),
    ("region", "us-east-1", "region", "us-east-1"),
    ("endpoint", "http://localhost:4567", "endpoint", "http://localhost:4567"),
    ("aws_access_key", "AKIAEXAMPLE", "awsAccessKey", "AKIAEXAMPLE"),
    ("aws_secret_key", "secret/key", "awsSecretKey", "secret/key"),
    ("aws_session_token", "token", "awsSessionToken", "token"),
    ("role_arn", "arn:aws:iam::123456789012:role/w", "roleArn", "arn:aws:iam::123456789012:role/w"),
    ("role_external_id", "ext-1", "roleExternalId", "ext-1"),
    ("role_session_name", "spark", "roleSessionName", "spark"),
    ("sts_endpoint", "http://localhost:5000", "stsEndpoint", "http://localhost:5000"),
    ("profile", "rotating", "profile", "rotating"),
    ("aws_credentials_provider", "com.example.Provider", "awsCredentialsProvider", "com.example.Provider"),
    ("aws_credentials_provider_secret", "p", "awsCredentialsProviderSecret", "p"),
    ("proxy_host", "proxy.internal", "proxyHost", "proxy.internal"),
    ("proxy_port", 3128, "proxyPort", "3128"),
    ("proxy_username", "reader", "proxyUsername", "reader"),
    ("proxy_password", "pw", "proxyPassword", "pw"),
    ("non_proxy_hosts", "*.local", "nonProxyHosts", "*.local"),
    ("max_records_per_put", 1, "maxRecordsPerPut", "1"),
    ("max_records_per_put", 500, "maxRecordsPerPut", "500"),
    ("max_bytes_per_put", "5mb", "maxBytesPerPut", "5mb"),
    ("max_bytes_per_put", "512KB", "maxBytesPerPut", "512kb"),
    ("max_bytes_per_put", 5 * 1024 * 1024, "maxBytesPerPut", "5242880b"),
    ("max_in_flight_puts", 1, "maxInFlightPuts", "1"),
    ("max_in_flight_puts", 64, "maxInFlightPuts", "64"),
    ("max_put_retries", 0, "maxPutRetries", "0"),
    ("max_put_retries", 1000, "maxPutRetries", "1000"),
    ("put_retry_backoff", "100ms", "putRetryBackoff", "100ms"),
    ("put_retry_backoff", timedelta(milliseconds=250), "putRetryBackoff", "250ms"),
    ("max_put_retry_backoff", "5s", "maxPutRetryBackoff", "5s"),
    ("max_put_retry_backoff", "10m", "maxPutRetryBackoff", "10m"),
    ("max_put_linger", "50ms", "maxPutLinger", "50ms"),
    ("max_put_linger", timedelta(milliseconds=5), "maxPutLinger", "5ms"),
    ("aggregation", "kpl", "aggregation", "kpl"),
    ("aggregation", " KPL ", "aggregation", "kpl"),
    ("aggregation", "none", "aggregation", "none"),
    ("order_per_key", False, "orderPerKey", "false"),
    ("order_per_key", True, "orderPerKey", "true"),
    ("record_ids", True, "recordIds", "true"),
    ("record_ids", False, "recordIds", "false"),
]


@pytest.mark.parametrize("method,argument,option,expected", CASES)
def test_each_method_sets_its_option(method, argument, option, expected):
    assert getattr(opts(), method)(argument).to_dict() == {option: expected}


def test_sink_option_names_lists_exactly_the_options_the_builder_produces():
    assert set(SINK_OPTION_NAMES) == {option for _, _, option, _ in CASES}
    assert len(SINK_OPTION_NAMES) == len(set(SINK_OPTION_NAMES))


def test_source_and_sink_share_exactly_the_connection_options():
    assert set(SINK_OPTION_NAMES) & set(SOURCE_OPTION_NAMES) == {
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
        "profile",
        "awsCredentialsProvider",
        "awsCredentialsProviderSecret",
        "proxyHost",
        "proxyPort",
        "proxyUsername",
        "proxyPassword",
        "nonProxyHosts",
    }


def test_every_public_setter_is_covered():
    setters = {n for n in dir(KinesisSinkOptions) if not n.startswith("_") and n not in {"to_dict", "apply"}}
    assert setters == {method for method, _, _, _ in CASES}


def test_methods_chain_and_a_later_value_replaces_an_earlier_one():
    built = opts().stream_name("a").max_put_retries(3).stream_name("b")
    assert built.to_dict() == {"streamName": "b", "maxPutRetries": "3"}


TYPE_ERRORS = [
    ("stream_name", ["a", "b"], "list"),
    ("stream_name", None, "NoneType"),
    ("region", 1, "int"),
    ("max_records_per_put", "500", "str"),
    ("max_records_per_put", True, "bool"),
    ("max_bytes_per_put", 1.5, "float"),
    ("max_in_flight_puts", 2.0, "float"),
    ("max_put_retries", "3", "str"),
    ("max_put_retries", False, "bool"),
    ("put_retry_backoff", 100, "int"),
    ("max_put_retry_backoff", None, "NoneType"),
    ("aws_secret_key", None, "NoneType"),
    ("aggregation", True, "bool"),
    ("order_per_key", "false", "str"),
    ("order_per_key", 1, "int"),
    ("record_ids", "true", "str"),
    ("record_ids", None, "NoneType"),
]


@pytest.mark.parametrize("method,argument,type_name", TYPE_ERRORS)
def test_wrong_type_raises_type_error_naming_the_type(method, argument, type_name):
    with pytest.raises(TypeError, match=rf"got {type_name}\b"):
        getattr(opts(), method)(argument)


VALUE_ERRORS = [
    ("stream_name", "a,b", "streamName"),
    ("stream_name", "", "streamName"),
    ("stream_name", "a b", "streamName"),
    ("stream_name", "x" * 129, "streamName"),
    ("max_records_per_put", 0, "maxRecordsPerPut"),
    ("max_records_per_put", 501, "maxRecordsPerPut"),
    ("max_bytes_per_put", "6mb", "maxBytesPerPut"),
    ("max_bytes_per_put", 0, "maxBytesPerPut"),
    ("max_bytes_per_put", "5", "maxBytesPerPut"),
    ("max_in_flight_puts", 0, "maxInFlightPuts"),
    ("max_in_flight_puts", 65, "maxInFlightPuts"),
    ("max_put_retries", -1, "maxPutRetries"),
    ("max_put_retries", 1001, "maxPutRetries"),
    ("put_retry_backoff", "0ms", "putRetryBackoff"),
    ("put_retry_backoff", "1.5s", "putRetryBackoff"),
    ("max_put_retry_backoff", "11m", "maxPutRetryBackoff"),
    ("max_put_linger", "0ms", "maxPutLinger"),
    ("aggregation", "kcl", "aggregation"),
    ("aggregation", "", "aggregation"),
]


@pytest.mark.parametrize("method,argument,option", VALUE_ERRORS)
def test_out_of_range_value_raises_value_error_naming_the_option(method, argument, option):
    with pytest.raises(ValueError, match=option):
        getattr(opts(), method)(argument)


def test_value_errors_say_what_is_allowed():
    with pytest.raises(ValueError, match="'stream' column"):
        opts().stream_name("a,b")
    with pytest.raises(ValueError, match="between 1 and 500"):
        opts().max_records_per_put(1000)
    with pytest.raises(ValueError, match="at most 5mb"):
        opts().max_bytes_per_put("10mb")
    with pytest.raises(ValueError, match="'none' or 'kpl'"):
        opts().aggregation("kinesis")


def test_repr_redacts_secrets():
    built = opts().stream_name("orders").aws_access_key("AKIAVISIBLE").aws_secret_key("s3cr3t-value")
    for secret in ["AKIAVISIBLE", "s3cr3t-value"]:
        assert secret not in repr(built)
    assert "streamName='orders'" in repr(built)


class RecordingWriter:
    """Stands in for DataFrameWriter / DataStreamWriter: options() returns the writer."""

    def __init__(self):
        self.options_set = {}

    def options(self, **options):
        self.options_set.update(options)
        return self


def test_apply_passes_every_option_to_the_writer_and_returns_it():
    writer = RecordingWriter()
    built = opts().stream_name("orders").max_in_flight_puts(2)
    assert built.apply(writer) is writer
    assert writer.options_set == {"streamName": "orders", "maxInFlightPuts": "2"}


def test_apply_rejects_something_that_is_not_a_writer():
    with pytest.raises(TypeError, match="got str"):
        opts().apply("kinesis")  # type: ignore[type-var]
