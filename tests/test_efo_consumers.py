# SPDX-License-Identifier: Apache-2.0
"""End to end: the enhanced fan-out consumer manager from Python, and its command line, against
the local Kinesis."""

import io
import os
import subprocess
import sys
import uuid
from datetime import datetime, timedelta

import pytest

from pyspark_kinesis import AWSKinesisConsumerManager, KinesisConsumerArgumentError, KinesisConsumerError, _cli
from pyspark_kinesis.consumers import AWSKinesisConsumerManagerBuilder
from waiting import wait_for


def consumers_of(kinesis, stream):
    """{name: status} of the stream's consumers, from boto3 (independent of the code under test)."""
    arn = kinesis.client.describe_stream_summary(StreamName=stream)["StreamDescriptionSummary"]["StreamARN"]
    consumers = kinesis.client.list_stream_consumers(StreamARN=arn)["Consumers"]
    return {c["ConsumerName"]: c["ConsumerStatus"] for c in consumers}


def wait_gone(kinesis, stream, name, timeout=30):
    wait_for(lambda: name not in consumers_of(kinesis, stream), f"consumer {name} gone", timeout=timeout)


@pytest.fixture
def manager(spark, kinesis):
    return (
        AWSKinesisConsumerManager.newManager(spark)
        .option("endpoint", kinesis.endpoint)
        .option("region", kinesis.region)
        .create()
    )


def test_register_list_reregister_deregister(manager, kinesis, stream):
    name = f"sparkkinesis_{uuid.uuid4().hex[:8]}"
    before = datetime.now()
    arn = manager.registerConsumer(stream, name)
    after = datetime.now()
    assert name in arn

    df = manager.listConsumers(stream)
    assert df.columns == ["consumerName", "consumerARN", "consumerStatus", "consumerCreationTimestamp"]
    rows = [r.asDict() for r in df.collect()]
    assert [(r["consumerName"], r["consumerARN"], r["consumerStatus"]) for r in rows] == [(name, arn, "ACTIVE")]
    # Created while it was registered (Spark's naive local time; Kinesis keeps whole seconds at least).
    created = rows[0]["consumerCreationTimestamp"]
    assert before - timedelta(seconds=1) <= created <= after, (before, created, after)

    assert manager.register_consumer(stream, name) == arn  # an existing consumer is reused

    manager.deregisterConsumer(stream, name)
    wait_gone(kinesis, stream, name)
    assert manager.listConsumersAsRows(stream) == []


@pytest.fixture
def python_manager(kinesis):
    """The manager with no JVM, as under Spark Connect: its calls go through boto3."""
    return AWSKinesisConsumerManagerBuilder(None, {"endpoint": kinesis.endpoint, "region": kinesis.region}).create()


def test_without_py4j_results_and_errors_are_the_jvm_managers(manager, python_manager, kinesis, stream):
    name = f"sparkkinesis_{uuid.uuid4().hex[:8]}"
    arn = python_manager.registerConsumer(stream, name)
    assert manager.registerConsumer(stream, name) == arn, "the JVM finds the consumer Python registered"
    assert python_manager.listConsumersAsRows(stream) == manager.listConsumersAsRows(stream)

    for bad in [
        lambda m: m.deregisterConsumer(stream, "no-such-consumer"),
        lambda m: m.registerConsumer("no-such-stream", name),
    ]:
        with pytest.raises(KinesisConsumerError) as jvm_error:
            bad(manager)
        with pytest.raises(KinesisConsumerError) as python_error:
            bad(python_manager)
        assert (python_error.value.condition, str(python_error.value)) == (
            jvm_error.value.condition,
            str(jvm_error.value),
        )

    python_manager.deregisterConsumer(stream, name)
    wait_gone(kinesis, stream, name)


def test_deregistering_a_missing_consumer_says_so(manager, stream):
    with pytest.raises(KinesisConsumerError) as error:
        manager.deregisterConsumer(stream, "no-such-consumer")
    assert error.value.condition == "KINESIS_EFO_CONSUMER_NOT_FOUND"
    assert "no-such-consumer" in str(error.value)


def jvm_refusal(call):
    """The message the JVM's own check gives (PySpark raises it as its IllegalArgumentException)."""
    from pyspark.errors import IllegalArgumentException

    with pytest.raises(IllegalArgumentException) as refused:
        call()
    return str(refused.value).split("\n\nJVM stacktrace:")[0]


@pytest.mark.parametrize("name", ["has space", "", "x" * 129])
def test_a_bad_name_is_refused_as_the_jvm_refuses_it_by_either_backend(spark, manager, python_manager, stream, name):
    jvm = spark._jvm.io.github.sparkkinesis
    expected = jvm_refusal(lambda: jvm.options.ConsumerNames.validate(name))
    for backend in (manager, python_manager):
        with pytest.raises(KinesisConsumerArgumentError) as error:
            backend.registerConsumer(stream, name)
        assert (error.value.condition, str(error.value)) == ("KINESIS_EFO_CONSUMER_NAME_INVALID", expected)


@pytest.mark.parametrize("option", ["regoin", "streamName"])
def test_an_unknown_option_is_refused_as_the_jvm_refuses_it_by_either_backend(spark, option):
    jvm = spark._jvm.io.github.sparkkinesis
    expected = jvm_refusal(lambda: jvm.AWSKinesisConsumerManager.newManager().option(option, "x").create())
    for session in (spark, None):
        with pytest.raises(KinesisConsumerArgumentError) as error:
            AWSKinesisConsumerManagerBuilder(session, {option: "x"}).create()
        assert (error.value.condition, str(error.value)) == ("KINESIS_UNKNOWN_OPTION", expected)


def test_command_line_registers_lists_and_deregisters(spark, kinesis, stream):
    common = ["--stream", stream, "--endpoint", kinesis.endpoint, "--region", kinesis.region]

    def cli(*argv):
        out, err = io.StringIO(), io.StringIO()
        code = _cli.main(["consumers", *argv, *common], spark=spark, out=out, err=err)
        return code, out.getvalue(), err.getvalue()

    code, out, _ = cli("register", "--prefix", "sparkkinesis_", "--name", "cli")
    assert code == 0 and "consumer/sparkkinesis_cli" in out
    assert consumers_of(kinesis, stream) == {"sparkkinesis_cli": "ACTIVE"}

    code, out, _ = cli("list", "--prefix", "sparkkinesis_")
    assert code == 0 and "sparkkinesis_cli" in out and "ACTIVE" in out
    assert out.splitlines()[-1] == f"1 consumers named sparkkinesis_* of stream {stream}."

    code, out, _ = cli("list", "--orphans-older-than", "1h")
    assert code == 0 and "sparkkinesis_cli" not in out  # registered just now

    code, _, err = cli("deregister", "--name", "not-there")
    assert code == 1 and "KINESIS_EFO_CONSUMER_NOT_FOUND" in err

    code, out, _ = cli("deregister", "--name", "sparkkinesis_cli")
    assert code == 0
    wait_gone(kinesis, stream, "sparkkinesis_cli")


def test_python_dash_m_needs_neither_spark_nor_java(kinesis, stream):
    """The entry point as a user runs it: a fresh process that finds no Java (so it could start
    no Spark), credentials from the environment (the kinesis fixture sets fake ones), nothing
    secret on the command line."""
    arn = kinesis.client.describe_stream_summary(StreamName=stream)["StreamDescriptionSummary"]["StreamARN"]
    kinesis.client.register_stream_consumer(StreamARN=arn, ConsumerName="orphan")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pyspark_kinesis",
            "consumers",
            "list",
            "--stream",
            stream,
            "--endpoint",
            kinesis.endpoint,
            "--region",
            kinesis.region,
        ],
        capture_output=True,
        text=True,
        timeout=180,
        env={**{k: v for k, v in os.environ.items() if k != "JAVA_HOME"}, "PATH": os.path.dirname(sys.executable)},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "orphan" in done.stdout
    assert done.stdout.splitlines()[-1] == f"1 consumers of stream {stream}."
    assert os.environ["AWS_SECRET_ACCESS_KEY"] not in done.stdout + done.stderr
