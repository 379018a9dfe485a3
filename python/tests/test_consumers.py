# SPDX-License-Identifier: Apache-2.0
"""The consumer-manager wrapper and the command line, against a fake JVM (no Spark)."""

import io
from datetime import datetime, timedelta, timezone
from types import SimpleNamespace

import pytest
from py4j.protocol import Py4JJavaError

from pyspark_kinesis import _cli
from pyspark_kinesis._registry import CONSUMER_MANAGER
from pyspark_kinesis.consumers import (
    AWSKinesisConsumerManager,
    AWSKinesisConsumerManagerBuilder,
    KinesisConsumerArgumentError,
    KinesisConsumerError,
)


class FakeJavaBuilder:
    def __init__(self, log, options=()):
        self.log = log
        self.options = list(options)

    def option(self, key, value):
        return FakeJavaBuilder(self.log, [*self.options, (key, value)])

    def create(self):
        self.log.append(("create", self.options))
        return FakeJavaManager(self.log)


class FakeJavaManager:
    def __init__(self, log):
        self.log = log

    def registerConsumer(self, stream, name):
        self.log.append(("register", stream, name))
        return f"arn:aws:kinesis:us-east-1:000000000000:stream/{stream}/consumer/{name}:1"

    def deregisterConsumer(self, stream, name):
        self.log.append(("deregister", stream, name))
        raise Py4JJavaError(
            "failed", FakeJavaError("[KINESIS_EFO_CONSUMER_NOT_FOUND] no consumer x", "KINESIS_EFO_CONSUMER_NOT_FOUND")
        )

    def where(self):
        return "region us-east-1"


class FakeJavaError:
    _target_id = "o1"  # What py4j's Py4JJavaError reads from a Java object reference.

    def __init__(self, message, condition):
        self.message, self.condition = message, condition

    def getMessage(self):
        return self.message

    def getCondition(self):
        return self.condition

    def toString(self):
        return self.message


def fake_spark(log):
    manager_class = SimpleNamespace(newManager=lambda: FakeJavaBuilder(log))
    package = SimpleNamespace(AWSKinesisConsumerManager=manager_class)
    return SimpleNamespace(_jvm=SimpleNamespace(io=SimpleNamespace(github=SimpleNamespace(sparkkinesis=package))))


def test_builder_passes_options_to_the_jvm_and_is_immutable():
    log = []
    base = AWSKinesisConsumerManagerBuilder(fake_spark(log))
    builder = base.option("region", "us-east-1").option("awsAccessKey", "AKIA1").option("REGION", "eu-west-1")
    manager = builder.create()
    # Each option once, under the name the JVM reads (matched case-insensitively).
    assert log == [("create", [("awsAccessKey", "AKIA1"), ("region", "eu-west-1")])]
    assert isinstance(manager, AWSKinesisConsumerManager)
    assert base._options == {}
    assert repr(manager) == "AWSKinesisConsumerManager(region us-east-1)"


def test_builder_checks_types_at_once():
    builder = AWSKinesisConsumerManagerBuilder(fake_spark([]))
    with pytest.raises(TypeError, match="value must be a str, got int"):
        builder.option("region", 1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="key must be a str"):
        builder.option(None, "x")  # type: ignore[arg-type]


def test_builder_repr_hides_secrets():
    builder = AWSKinesisConsumerManagerBuilder(fake_spark([])).options(
        awsAccessKey="AKIASECRET", awsSecretKey="s3cr3t", region="us-east-1"
    )
    text = repr(builder)
    assert "AKIASECRET" not in text and "s3cr3t" not in text
    assert "region=us-east-1" in text


def test_methods_call_the_jvm_manager_and_snake_case_aliases_match():
    log = []
    manager = AWSKinesisConsumerManagerBuilder(fake_spark(log)).create()
    assert manager.registerConsumer("orders", "c").endswith("consumer/c:1")
    assert manager.register_consumer("orders", "d").endswith("consumer/d:1")
    assert ("register", "orders", "d") in log
    assert AWSKinesisConsumerManager.new_manager is AWSKinesisConsumerManager.newManager
    with pytest.raises(TypeError, match="streamName must be a str"):
        manager.registerConsumer(1, "c")  # type: ignore[arg-type]


def test_jvm_errors_become_kinesis_consumer_errors_with_their_condition():
    manager = AWSKinesisConsumerManagerBuilder(fake_spark([])).create()
    with pytest.raises(KinesisConsumerError) as error:
        manager.deregisterConsumer("orders", "x")
    assert error.value.condition == "KINESIS_EFO_CONSUMER_NOT_FOUND"
    assert str(error.value).startswith("[KINESIS_EFO_CONSUMER_NOT_FOUND]")


def test_a_bad_value_the_jvm_refuses_is_an_argument_error_with_its_condition():
    from pyspark.errors import IllegalArgumentException

    refused = IllegalArgumentException("[KINESIS_INVALID_OPTION_VALUE] bad region")
    # The Java exception, where PySpark keeps it.
    java = FakeJavaError("[KINESIS_INVALID_OPTION_VALUE] Option region ...", "KINESIS_INVALID_OPTION_VALUE")
    refused._origin = java  # type: ignore[attr-defined]

    def create():
        raise refused

    spark = fake_spark([])
    spark._jvm.io.github.sparkkinesis.AWSKinesisConsumerManager.newManager = lambda: SimpleNamespace(
        option=lambda k, v: SimpleNamespace(create=create)
    )
    with pytest.raises(KinesisConsumerArgumentError) as error:
        AWSKinesisConsumerManagerBuilder(spark).option("region", "us-nowhere-1").create()
    assert isinstance(error.value, ValueError)
    assert error.value.condition == "KINESIS_INVALID_OPTION_VALUE"
    assert str(error.value) == "[KINESIS_INVALID_OPTION_VALUE] Option region ..."


def jvm_and_python_builders(log):
    """A builder of each backend: the JVM's (a fake one) and boto3's (no session)."""
    return [AWSKinesisConsumerManagerBuilder(fake_spark(log)), AWSKinesisConsumerManagerBuilder(None)]


def test_an_unknown_option_is_refused_alike_by_either_backend_before_any_call():
    log = []
    for builder in jvm_and_python_builders(log):
        with pytest.raises(KinesisConsumerArgumentError) as error:
            builder.option("regoin", "us-east-1").create()
        assert isinstance(error.value, ValueError)
        assert error.value.condition == "KINESIS_UNKNOWN_OPTION"
        assert str(error.value).startswith(
            "[KINESIS_UNKNOWN_OPTION] Unknown option 'regoin' for the kinesis data source. Did you mean 'region'?"
        )
        with pytest.raises(KinesisConsumerArgumentError, match=r"Unknown option 'streamName'[^?]*$"):
            builder.option("streamName", "s").create()
    assert log == []


@pytest.mark.parametrize(
    "name, reason",
    [
        ("", "it is empty"),
        (
            "x" * (CONSUMER_MANAGER.name_max_length + 1),
            f"it has {CONSUMER_MANAGER.name_max_length + 1} characters, more than {CONSUMER_MANAGER.name_max_length}",
        ),
        ("has space/and:more ", "it contains ' ', '/', ':'"),
    ],
)
def test_a_bad_consumer_name_is_refused_alike_by_either_backend_before_any_call(name, reason):
    log = []
    for builder in jvm_and_python_builders(log):
        manager = builder.create()
        log.clear()
        for call in (manager.registerConsumer, manager.deregisterConsumer):
            with pytest.raises(KinesisConsumerArgumentError) as error:
                call("orders", name)
            assert error.value.condition == "KINESIS_EFO_CONSUMER_NAME_INVALID"
            assert str(error.value).startswith(
                f"[KINESIS_EFO_CONSUMER_NAME_INVALID] '{name}' is not a valid enhanced fan-out consumer name: {reason}."
            )
        assert log == []
    manager = AWSKinesisConsumerManagerBuilder(fake_spark(log)).create()
    assert manager.registerConsumer("orders", "x" * CONSUMER_MANAGER.name_max_length).endswith(":1")


def test_without_a_session_the_manager_calls_aws_from_python():
    from pyspark.sql import SparkSession

    if SparkSession.getActiveSession() is None:
        manager = AWSKinesisConsumerManager.newManager().option("region", "eu-west-1").create()
        assert repr(manager) == "AWSKinesisConsumerManager(region eu-west-1)"
        with pytest.raises(RuntimeError, match="use listConsumersAsRows"):
            manager.listConsumers("orders")
    with pytest.raises(TypeError, match="spark must be a SparkSession"):
        AWSKinesisConsumerManager.newManager("spark")


# ---- command line ----


def cli(argv, manager=None, monkeypatch=None):
    out, err = io.StringIO(), io.StringIO()
    if manager is not None:
        monkeypatch.setattr(_cli, "_manager", lambda spark, args: manager)
    code = _cli.main(argv, spark=object(), out=out, err=err)  # type: ignore[arg-type]  # never used: _manager is faked
    return code, out.getvalue(), err.getvalue()


def row(name, age_hours, status="ACTIVE"):
    created = (datetime.now(timezone.utc) - timedelta(hours=age_hours)).astimezone().replace(tzinfo=None)
    return {
        "consumerName": name,
        "consumerARN": f"arn:aws:kinesis:::stream/s/consumer/{name}:1",
        "consumerStatus": status,
        "consumerCreationTimestamp": created,
    }


class FakeManager:
    def __init__(self, rows):
        self.rows, self.calls = rows, []

    def listConsumersAsRows(self, stream):
        return self.rows

    def registerConsumer(self, stream, name):
        self.calls.append(("register", stream, name))
        return "arn:new"

    def deregisterConsumer(self, stream, name):
        self.calls.append(("deregister", stream, name))
        if name == "missing":
            raise KinesisConsumerError(
                "[KINESIS_EFO_CONSUMER_NOT_FOUND] no such consumer", "KINESIS_EFO_CONSUMER_NOT_FOUND"
            )


def test_list_prints_a_table_and_a_count(monkeypatch):
    manager = FakeManager([row("sparkkinesis_a", 30), row("other", 1, "CREATING")])
    code, out, _ = cli(["consumers", "list", "--stream", "s"], manager, monkeypatch)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["NAME", "STATUS", "CREATED", "(UTC)", "ARN"]
    assert "sparkkinesis_a" in lines[1] and "ACTIVE" in lines[1]
    assert "other" in lines[2] and "CREATING" in lines[2]
    assert lines[-1] == "2 consumers of stream s."


def test_list_orphans_older_than_filters_by_age_and_prefix(monkeypatch):
    manager = FakeManager([row("sparkkinesis_old", 30), row("sparkkinesis_new", 0.1), row("old_other", 30)])
    code, out, _ = cli(
        ["consumers", "list", "--stream", "s", "--prefix", "sparkkinesis_", "--orphans-older-than", "1d"],
        manager,
        monkeypatch,
    )
    assert code == 0
    assert "sparkkinesis_old" in out and "sparkkinesis_new" not in out and "old_other" not in out
    assert "1 consumers named sparkkinesis_* of stream s created more than 1d ago" in out
    assert "consumers deregister --stream s --name NAME" in out


def test_register_and_deregister_put_the_prefix_before_the_name(monkeypatch):
    manager = FakeManager([])
    assert cli(
        ["consumers", "register", "--stream", "s", "--name", "q1", "--prefix", "sparkkinesis_"], manager, monkeypatch
    )[:2] == (0, "arn:new\n")
    code, out, _ = cli(["consumers", "deregister", "--stream", "s", "--name", "x"], manager, monkeypatch)
    assert code == 0 and out == "Deregistered consumer x of stream s.\n"
    assert manager.calls == [("register", "s", "sparkkinesis_q1"), ("deregister", "s", "x")]


def test_a_failed_call_exits_1_with_the_message(monkeypatch):
    code, out, err = cli(
        ["consumers", "deregister", "--stream", "s", "--name", "missing"], FakeManager([]), monkeypatch
    )
    assert (code, out) == (1, "")
    assert err.startswith("error: [KINESIS_EFO_CONSUMER_NOT_FOUND]")


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["consumers"],
        ["consumers", "list"],
        ["consumers", "deregister", "--stream", "s"],  # deregister needs an explicit name
        ["consumers", "purge", "--stream", "s"],
        ["consumers", "list", "--stream", "s", "--awsSecretKey", "x"],  # no secrets on the command line
    ],
)
def test_usage_errors_exit_2(argv, capsys):
    assert _cli.main(argv, spark=object()) == 2  # type: ignore[arg-type]  # never used: usage fails first
    assert "usage:" in capsys.readouterr().err


def test_a_bad_duration_exits_2():
    code, _, err = cli(["consumers", "list", "--stream", "s", "--orphans-older-than", "yesterday"])
    assert code == 2 and "--orphans-older-than" in err


# -- the boto3 calls' connection options (no JVM: Spark Connect, the command line) ----------


def test_the_boto3_calls_go_through_the_proxy_of_the_options():
    from pyspark_kinesis._aws_consumers import AwsConsumerCalls

    calls = AwsConsumerCalls(
        {
            "region": "us-east-1",
            "proxyHost": "proxy.internal",
            "proxyPort": "3128",
            "proxyUsername": "reader",
            "proxyPassword": "p@ss word",
        }
    )
    url = "http://reader:p%40ss%20word@proxy.internal:3128"
    assert calls._config().proxies == {"http": url, "https": url}
    assert AwsConsumerCalls({"region": "us-east-1"})._config() is None


def test_the_boto3_calls_read_the_named_profile():
    from pyspark_kinesis._aws_consumers import AwsConsumerCalls

    with pytest.raises(Exception) as missing:
        AwsConsumerCalls({"region": "us-east-1", "profile": "no-such-profile-e2e"})._session()
    assert "no-such-profile-e2e" in str(missing.value)


def test_a_jvm_credentials_provider_class_is_refused_by_the_boto3_calls():
    from pyspark_kinesis._aws_consumers import AwsConsumerCalls

    with pytest.raises(ValueError) as refused:
        AwsConsumerCalls({"awsCredentialsProvider": "com.example.Provider"})
    assert "awsCredentialsProvider" in str(refused.value) and "classic session" in str(refused.value)


@pytest.mark.parametrize("flag", ["--endpoint-url", "--endpoint"])
def test_the_endpoint_flag_has_the_offsets_tools_name_and_the_options_name(flag, monkeypatch):
    seen = {}

    def manager(spark, args):
        seen["endpoint"] = args.endpoint
        return FakeManager([])

    monkeypatch.setattr(_cli, "_manager", manager)
    code, _, err = cli(["consumers", "list", "--stream", "s", flag, "http://127.0.0.1:4567"])
    assert code == 0, err
    assert seen == {"endpoint": "http://127.0.0.1:4567"}


def test_without_boto3_the_boto3_calls_name_the_extra_to_install(monkeypatch):
    import importlib.util

    from pyspark_kinesis._aws_consumers import AwsConsumerCalls

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "boto3" else real(name, *a))
    with pytest.raises(ModuleNotFoundError, match=r"pip install 'pyspark-kinesis\[consumers\]'"):
        AwsConsumerCalls({"region": "us-east-1"})
