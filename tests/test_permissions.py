# SPDX-License-Identifier: Apache-2.0
"""docs/permissions.md's policies are what the connector calls. Each use runs through the fault
proxy, which counts every request's operation (its X-Amz-Target); the page's JSON policy for that
use must allow exactly the kinesis actions called: none missing, none never called."""

import json
import re
import subprocess
import sys
import uuid
from pathlib import Path

from faults import Fault
from pyspark_kinesis import AWSKinesisConsumerManager
from streaming import kinesis_reader, kinesis_writer, make_records, registered_elsewhere, run_available_now

PAGE = Path(__file__).resolve().parent.parent / "docs/permissions.md"


def policy_actions(heading):
    """The kinesis actions of the first JSON policy under '## <heading>'."""
    text = PAGE.read_text()
    start = text.index(f"\n## {heading}\n")
    section = text[start : text.find("\n## ", start + 1) if "\n## " in text[start + 1 :] else len(text)]
    block = re.search(r"```json\n(.*?)```", section, re.S)
    assert block, f"docs/permissions.md: no JSON policy under '## {heading}'"
    actions = set()
    for statement in json.loads(block.group(1))["Statement"]:
        listed = statement["Action"]
        actions |= {a for a in ([listed] if isinstance(listed, str) else listed) if a.startswith("kinesis:")}
    return actions


def called(proxy):
    return {f"kinesis:{operation}" for operation, n in proxy.calls.items() if n > 0}


def assert_policy_matches(heading, proxy):
    documented, made = policy_actions(heading), called(proxy)
    assert documented == made, (
        f"docs/permissions.md '{heading}': missing {sorted(made - documented)}, "
        f"never called {sorted(documented - made)}"
    )


def read_through(spark, kinesis, proxy, tmp_path, **options):
    stream = kinesis.create_stream(shards=2)
    kinesis.put_records(stream, make_records(20))
    if options.pop("consumerARN", None):
        options["consumerARN"] = registered_elsewhere(kinesis, stream)
    df = kinesis_reader(spark, kinesis, stream, endpoint=proxy.endpoint, **options)
    run_available_now(df, tmp_path / "out", tmp_path / "chk")
    assert spark.read.parquet(str(tmp_path / "out")).count() == 20
    return stream


def test_polling_read(spark, kinesis, fault_proxy, tmp_path):
    read_through(spark, kinesis, fault_proxy, tmp_path)
    assert_policy_matches("Polling read", fault_proxy)


def test_efo_by_consumer_name(spark, kinesis, fault_proxy, tmp_path):
    read_through(spark, kinesis, fault_proxy, tmp_path, consumerMode="efo", consumerName=f"p-{uuid.uuid4().hex[:8]}")
    assert_policy_matches("Enhanced fan-out by consumer name", fault_proxy)


def test_efo_by_consumer_arn(spark, kinesis, fault_proxy, tmp_path):
    read_through(spark, kinesis, fault_proxy, tmp_path, consumerMode="efo", consumerARN="registered elsewhere")
    assert_policy_matches("Enhanced fan-out by consumerARN", fault_proxy)


RETENTION_CHECK = {"kinesis:GetShardIterator", "kinesis:GetRecords"}


def restarted_efo_read(spark, kinesis, proxy, tmp_path):
    """An enhanced fan-out query run twice on one checkpoint, with records put in between: the
    second run starts from positions the first reached. Returns the rows both stored."""
    stream = kinesis.create_stream(shards=2)
    kinesis.put_records(stream, make_records(20))
    df = kinesis_reader(
        spark, kinesis, stream, endpoint=proxy.endpoint, consumerMode="efo", consumerName=f"p-{uuid.uuid4().hex[:8]}"
    )
    run_available_now(df, tmp_path / "out", tmp_path / "chk")
    kinesis.put_records(stream, make_records(10))
    run_available_now(df, tmp_path / "out", tmp_path / "chk")
    return spark.read.parquet(str(tmp_path / "out")).count()


def test_efo_restarted_calls_what_the_page_adds_for_its_retention_check(spark, kinesis, fault_proxy, tmp_path):
    assert restarted_efo_read(spark, kinesis, fault_proxy, tmp_path) == 30
    heading = "Enhanced fan-out by consumer name"
    assert called(fault_proxy) - policy_actions(heading) == RETENTION_CHECK
    section = PAGE.read_text().split(f"## {heading}\n")[1].split("\n## ")[0]
    assert all(f"`{action}`" in section for action in RETENTION_CHECK), "the page names the check's permissions"


def test_efo_restarted_without_the_retention_checks_permissions_reads_on(spark, kinesis, fault_proxy, tmp_path):
    fault_proxy.add(Fault.error("GetShardIterator", "AccessDeniedException", every=1))
    assert restarted_efo_read(spark, kinesis, fault_proxy, tmp_path) == 30
    assert fault_proxy.calls["GetShardIterator"] > 0, "the restarted query tried its retention check"


def test_sink(spark, kinesis, fault_proxy):
    stream = kinesis.create_stream(shards=2)
    df = spark.createDataFrame(make_records(20), "partitionKey string, data binary")
    kinesis_writer(df, kinesis, stream, endpoint=fault_proxy.endpoint).save()
    assert_policy_matches("Sink", fault_proxy)


def test_sink_with_kpl_aggregation(spark, kinesis, fault_proxy):
    stream = kinesis.create_stream(shards=2)
    df = spark.createDataFrame(make_records(20), "partitionKey string, data binary")
    kinesis_writer(df, kinesis, stream, endpoint=fault_proxy.endpoint, aggregation="kpl").save()
    assert_policy_matches("Sink with KPL aggregation", fault_proxy)


def test_consumers_cli(kinesis, fault_proxy):
    # A process of its own, as from a shell: no Spark session, so the calls go through boto3.
    stream = kinesis.create_stream(shards=1)
    where = ["--stream", stream, "--region", kinesis.region, "--endpoint-url", fault_proxy.endpoint]
    for action in (["register", "--name", "cli"], ["list"], ["deregister", "--name", "cli"]):
        done = subprocess.run(
            [sys.executable, "-m", "pyspark_kinesis", "consumers", *action, *where], capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
    assert_policy_matches("Consumers CLI", fault_proxy)


def test_consumer_manager(spark, kinesis, fault_proxy):
    stream = kinesis.create_stream(shards=1)
    manager = (
        AWSKinesisConsumerManager.newManager(spark)
        .option("region", kinesis.region)
        .option("endpoint", fault_proxy.endpoint)
        .create()
    )
    manager.registerConsumer(stream, "manager")
    assert [r.consumerName for r in manager.listConsumers(stream).collect()] == ["manager"]
    manager.deregisterConsumer(stream, "manager")
    assert_policy_matches("Consumer manager", fault_proxy)


def test_offsets_tool(spark, kinesis, fault_proxy, tmp_path):
    stream = kinesis.create_stream(shards=2)
    kinesis.put_records(stream, make_records(10))
    run_available_now(kinesis_reader(spark, kinesis, stream), tmp_path / "out", tmp_path / "chk")
    where = ["--region", kinesis.region, "--endpoint-url", fault_proxy.endpoint]
    for words in (["show", str(tmp_path / "chk")], ["at-timestamp", "2026-01-01T00:00:00Z", "--stream", stream]):
        done = subprocess.run(
            [sys.executable, "-m", "pyspark_kinesis", "offsets", *words, *where], capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
    assert_policy_matches("Offsets tool", fault_proxy)
