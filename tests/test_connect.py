# SPDX-License-Identifier: Apache-2.0
"""End to end through Spark Connect: a local Connect server started with the connector jar, a
PySpark Connect client reading and writing Kinesis with format("kinesis") and the typed
builders, the consumer manager working from that client (no py4j there), and what a real-time query can
write to Kinesis from it.

PySpark cannot hold a classic session and a Connect client in one process (once a Connect
session exists, every builder makes Connect sessions), so this module runs in a pytest run of
its own: `make test-e2e` and `make test-connect` do so."""

import os
import uuid

import boto3
import pyspark
import pytest
from connect_server import connect_server

import pyspark_kinesis
from pyspark_kinesis import (
    AWSKinesisConsumerManager,
    KinesisConsumerError,
    KinesisSinkOptions,
    KinesisSourceOptions,
    foreach_kinesis,
)
from pyspark_kinesis.schema_registry import from_gsr_json, from_gsr_protobuf, to_gsr_json, to_gsr_protobuf
from streaming import make_records, read_all
from waiting import wait_for

pytest.importorskip("pyspark.sql.connect.session", reason="needs pyspark[connect]")


@pytest.fixture(scope="module")
def remote(kinesis, tmp_path_factory):
    """A Spark Connect client session on a server that has the connector jar."""
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    assert SparkContext._active_spark_context is None, (
        "a classic session runs in this process: run tests/test_connect.py in a pytest run of its own"
    )
    with connect_server(pyspark_kinesis.jar_path(), tmp_path_factory.mktemp("connect")) as url:
        session = SparkSession.builder.remote(url).getOrCreate()
        try:
            yield session
        finally:
            session.stop()
            os.environ.pop("SPARK_CONNECT_MODE_ENABLED", None)  # set by PySpark for remote sessions


def test_a_connect_client_has_no_jvm(remote):
    assert getattr(remote, "_jvm", None) is None


def test_a_connect_client_reads_a_stream_and_writes_one(remote, kinesis, tmp_path):
    source, target = kinesis.create_stream(shards=2), kinesis.create_stream(shards=1)
    records = make_records(200)
    kinesis.put_records(source, records)

    reader = (
        KinesisSourceOptions()
        .stream_name(source)
        .region(kinesis.region)
        .endpoint(kinesis.endpoint)
        .initial_position("trim_horizon")
    )
    df = reader.apply(remote.readStream.format("kinesis")).load()
    query = (
        df.writeStream.format("parquet")
        .option("path", str(tmp_path / "out"))
        .option("checkpointLocation", str(tmp_path / "chk"))
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination(240)
    assert query.exception() is None
    rows = remote.read.parquet(str(tmp_path / "out")).collect()
    assert sorted((r.partitionKey, bytes(r.data)) for r in rows) == sorted(records)

    # A batch write with no mode(...), as with format("kafka"), then through the sink builder.
    sink = KinesisSinkOptions().stream_name(target).region(kinesis.region).endpoint(kinesis.endpoint)
    sink.apply(remote.read.parquet(str(tmp_path / "out")).select("partitionKey", "data").write.format("kinesis")).save()
    assert sorted((key, data) for _, key, data in read_all(kinesis, target)) == sorted(records)


def test_read_kinesis_in_sql_from_a_connect_client(remote, kinesis, tmp_path):
    stream = kinesis.create_stream(shards=2)
    records = make_records(30)
    kinesis.put_records(stream, records)
    arguments = (
        f"streamName => '{stream}', region => '{kinesis.region}', endpoint => '{kinesis.endpoint}', "
        "initialPosition => 'trim_horizon'"
    )

    batch = remote.sql(f"SELECT partitionKey, data FROM read_kinesis({arguments})")
    assert sorted((r.partitionKey, bytes(r.data)) for r in batch.collect()) == sorted(records)

    if tuple(int(part) for part in pyspark.__version__.split(".")[:2]) < (4, 2):
        return  # STREAM before a table function parses from Spark 4.2 on (docs/sql.md)
    streaming = remote.sql(f"SELECT partitionKey, data FROM STREAM read_kinesis({arguments})")
    assert streaming.isStreaming
    query = (
        streaming.writeStream.format("parquet")
        .option("path", str(tmp_path / "out"))
        .option("checkpointLocation", str(tmp_path / "chk"))
        .trigger(availableNow=True)
        .start()
    )
    assert query.awaitTermination(240), "the query did not finish within 240s"
    assert query.exception() is None
    rows = remote.read.parquet(str(tmp_path / "out")).collect()
    assert sorted((r.partitionKey, bytes(r.data)) for r in rows) == sorted(records)


def test_schema_registry_functions_in_python_and_sql_from_a_connect_client(remote, moto):
    """to_gsr_json and from_gsr_json (Python, which calls the SQL functions) and from_gsr_json in
    SQL text, against moto's Glue Schema Registry, all resolved by the server's session extension."""
    glue = boto3.client("glue", endpoint_url=moto.endpoint, region_name=moto.region, **moto.admin)
    registry = f"connect-{uuid.uuid4().hex[:6]}"
    glue.create_registry(RegistryName=registry)
    key_id, secret, _ = moto.create_user(
        f"connect-gsr-{uuid.uuid4().hex[:6]}",
        ["glue:GetSchemaVersion", "glue:GetSchemaByDefinition", "glue:RegisterSchemaVersion", "glue:CreateSchema"],
    )
    options = {
        "registryName": registry,
        "schemaName": "orders",
        "endpoint": moto.endpoint,
        "region": moto.region,
        "awsAccessKey": key_id,
        "awsSecretKey": secret,
    }
    definition = '{"type":"object","properties":{"id":{"type":"integer"},"item":{"type":"string"}},"required":["id"]}'
    rows = remote.createDataFrame([(1, "apple"), (2, "pear")], "id long, item string")
    written = rows.selectExpr("struct(*) AS o").select(
        to_gsr_json("o", {**options, "schemaDefinition": definition, "autoRegistration": "true"}).alias("data")
    )
    records = [bytes(r.data) for r in written.collect()]
    assert {r[:2] for r in records} == {bytes([3, 0])}, "records with the Glue Schema Registry header"

    df = remote.createDataFrame([(r,) for r in records], "data binary")
    decoded = df.select(from_gsr_json("data", options).alias("o")).select("o.*")
    assert sorted(tuple(r) for r in decoded.collect()) == [(1, "apple"), (2, "pear")]

    df.createOrReplaceTempView("gsr_connect_records")
    sql_options = ", ".join(f"'{k}', '{v}'" for k, v in options.items())
    in_sql = remote.sql(
        f"SELECT o.item FROM (SELECT from_gsr_json(data, map({sql_options})) AS o FROM gsr_connect_records)"
    )
    assert sorted(r.item for r in in_sql.collect()) == ["apple", "pear"]


def test_protobuf_schema_registry_functions_from_a_connect_client(remote, moto):
    """to_gsr_protobuf and from_gsr_protobuf from a Connect client, resolved by the server's session extension."""
    glue = boto3.client("glue", endpoint_url=moto.endpoint, region_name=moto.region, **moto.admin)
    registry = f"connect-proto-{uuid.uuid4().hex[:6]}"
    glue.create_registry(RegistryName=registry)
    options = {
        "registryName": registry,
        "schemaName": "orders",
        "messageName": "shop.Order",
        "endpoint": moto.endpoint,
        "region": moto.region,
        "awsAccessKey": moto.admin["aws_access_key_id"],
        "awsSecretKey": moto.admin["aws_secret_access_key"],
    }
    definition = 'syntax = "proto3";\npackage shop;\nmessage Order { int64 id = 1; string item = 2; }\n'
    rows = remote.createDataFrame([(1, "apple"), (2, "pear")], "id long, item string")
    written = rows.selectExpr("struct(*) AS o").select(
        to_gsr_protobuf("o", {**options, "schemaDefinition": definition, "autoRegistration": "true"}).alias("data")
    )
    records = [bytes(r.data) for r in written.collect()]
    assert {r[:2] + r[18:19] for r in records} == {bytes([3, 0, 0])}, "GSR records of message index 0"
    df = remote.createDataFrame([(r,) for r in records], "data binary")
    decoded = df.select(from_gsr_protobuf("data", options).alias("o")).select("o.*")
    assert sorted(tuple(r) for r in decoded.collect()) == [(1, "apple"), (2, "pear")]


def test_the_consumer_manager_works_from_a_connect_client(remote, kinesis, stream):
    manager = (
        AWSKinesisConsumerManager.newManager(remote)
        .option("endpoint", kinesis.endpoint)
        .option("region", kinesis.region)
        .create()
    )
    name = f"sparkkinesis_connect_{uuid.uuid4().hex[:8]}"

    arn = manager.registerConsumer(stream, name)
    assert name in arn

    listed = manager.listConsumers(stream)
    assert type(listed).__module__.startswith("pyspark.sql.connect")
    assert listed.columns == ["consumerName", "consumerARN", "consumerStatus", "consumerCreationTimestamp"]
    assert [(r.consumerName, r.consumerARN, r.consumerStatus) for r in listed.collect()] == [(name, arn, "ACTIVE")]

    manager.deregisterConsumer(stream, name)
    wait_for(lambda: not manager.listConsumersAsRows(stream), "the consumer gone from the list", timeout=30)
    with pytest.raises(KinesisConsumerError) as error:
        manager.deregisterConsumer(stream, name)
    assert error.value.condition == "KINESIS_EFO_CONSUMER_NOT_FOUND"


def test_real_time_to_kinesis_from_a_connect_client_takes_format_kinesis_with_sparks_check_off(
    remote, kinesis, tmp_path
):
    source, target = kinesis.create_stream(shards=1), kinesis.create_stream(shards=1)
    records = make_records(20)
    kinesis.put_records(source, records)
    df = (
        KinesisSourceOptions()
        .stream_name(source)
        .region(kinesis.region)
        .endpoint(kinesis.endpoint)
        .initial_position("trim_horizon")
        .apply(remote.readStream.format("kinesis"))
        .load()
    )
    out = KinesisSinkOptions().stream_name(target).region(kinesis.region).endpoint(kinesis.endpoint)
    # The JVM foreach writer cannot travel from a Python Connect client: refused, naming the way.
    with pytest.raises(RuntimeError, match="Spark Connect's foreach takes Python writers only"):
        foreach_kinesis(df, out)

    remote.conf.set("spark.sql.streaming.realTimeMode.allowlistCheck", "false")
    try:
        query = (
            out.apply(df.select("partitionKey", "data").writeStream.format("kinesis"))
            .option("checkpointLocation", str(tmp_path / "chk"))
            .outputMode("update")
            .trigger(realTime="5 seconds")
            .start()
        )
        try:
            wait_for(lambda: len(read_all(kinesis, target)) >= len(records), "every record in the second stream", query)
        finally:
            query.stop()
    finally:
        remote.conf.unset("spark.sql.streaming.realTimeMode.allowlistCheck")
    assert sorted((key, data) for _, key, data in read_all(kinesis, target)) == sorted(records)
