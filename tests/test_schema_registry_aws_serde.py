# SPDX-License-Identifier: Apache-2.0
"""End to end with AWS's own Glue Schema Registry serializer as the producer (the Java library
that Kinesis producers and the KPL call): records it encodes against moto's registry,
registering each new schema version itself, go through a local Kinesis stream and come out of
from_gsr_avro, from_gsr_json and from_gsr_protobuf as typed columns, across a schema change in
the middle of the stream and with zlib compression on."""

import io
import json
import uuid

import boto3
import fastavro
import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from aws_gsr_serde import AwsSerializer
from pyspark_kinesis.schema_registry import from_gsr_avro, from_gsr_json, from_gsr_protobuf
from streaming import kinesis_reader, run_available_now

REGISTRY = "aws-serde-registry"
HEADER_VERSION, NO_COMPRESSION, ZLIB = 3, 0, 5
AVRO_V1 = {
    "type": "record",
    "name": "Order",
    "fields": [{"name": "id", "type": "long"}, {"name": "item", "type": "string"}],
}
AVRO_V2 = {**AVRO_V1, "fields": [*AVRO_V1["fields"], {"name": "quantity", "type": "int", "default": 1}]}
JSON_SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "properties": {"id": {"type": "integer"}, "item": {"type": "string"}},
    "required": ["id", "item"],
}


@pytest.fixture(scope="module")
def serializer(moto):
    glue = boto3.client("glue", endpoint_url=moto.endpoint, region_name=moto.region, **moto.admin)
    glue.create_registry(RegistryName=REGISTRY)
    return AwsSerializer(moto.endpoint, moto.region, REGISTRY, moto.admin)


def options(moto, schema_name):
    return {
        "registryName": REGISTRY,
        "schemaName": schema_name,
        "endpoint": moto.endpoint,
        "region": moto.region,
        "awsAccessKey": moto.admin["aws_access_key_id"],
        "awsSecretKey": moto.admin["aws_secret_access_key"],
    }


def avro(schema, value):
    out = io.BytesIO()
    fastavro.schemaless_writer(out, fastavro.parse_schema(schema), value)
    return out.getvalue()


def read(spark, kinesis, stream, column, tmp_path):
    df = kinesis_reader(spark, kinesis, stream).select(column.alias("o")).select("o.*")
    run_available_now(df, tmp_path / "out", tmp_path / "checkpoint")
    return spark.read.parquet(str(tmp_path / "out"))


def test_avro_records_of_two_versions_the_serializer_registered_read_as_the_newer_one(
    spark, kinesis, moto, serializer, tmp_path
):
    name = f"orders-{uuid.uuid4().hex[:8]}"
    older = serializer.encode(
        [avro(AVRO_V1, {"id": i, "item": f"a{i}"}) for i in range(3)], name, "AVRO", json.dumps(AVRO_V1)
    )
    newer = serializer.encode(
        [avro(AVRO_V2, {"id": 10 + i, "item": f"b{i}", "quantity": i}) for i in range(3)],
        name,
        "AVRO",
        json.dumps(AVRO_V2),
        compression="ZLIB",
    )
    # What the serializer wrote: its header, a version each, compressed as asked.
    assert {(r[0], r[1]) for r in older} == {(HEADER_VERSION, NO_COMPRESSION)}
    assert {(r[0], r[1]) for r in newer} == {(HEADER_VERSION, ZLIB)}
    assert len({r[2:18] for r in older + newer}) == 2, "one schema version per definition"
    stream = kinesis.create_stream(shards=2)
    kinesis.put_records(stream, [(f"k{i}", r) for i, r in enumerate(older + newer)])

    # The reader schema is the latest version when the query starts: the one the serializer registered second.
    rows = read(spark, kinesis, stream, from_gsr_avro("data", options(moto, name)), tmp_path)
    assert rows.columns == ["id", "item", "quantity"]
    assert sorted(tuple(r) for r in rows.collect()) == [
        (0, "a0", 1),
        (1, "a1", 1),
        (2, "a2", 1),
        (10, "b0", 0),
        (11, "b1", 1),
        (12, "b2", 2),
    ]


def test_json_records_the_serializer_encoded_read_as_typed_columns(spark, kinesis, moto, serializer, tmp_path):
    name = f"json-orders-{uuid.uuid4().hex[:8]}"
    values = [{"id": i, "item": f"j{i}"} for i in range(4)]
    payloads = [json.dumps(v).encode() for v in values]
    records = serializer.encode(payloads[:2], name, "JSON", json.dumps(JSON_SCHEMA)) + serializer.encode(
        payloads[2:], name, "JSON", json.dumps(JSON_SCHEMA), compression="ZLIB"
    )
    assert [r[1] for r in records] == [NO_COMPRESSION, NO_COMPRESSION, ZLIB, ZLIB]
    stream = kinesis.create_stream(shards=1)
    kinesis.put_records(stream, [(f"k{i}", r) for i, r in enumerate(records)])

    rows = read(spark, kinesis, stream, from_gsr_json("data", options(moto, name)), tmp_path)
    assert sorted((r.id, r.item) for r in rows.collect()) == [(v["id"], v["item"]) for v in values]


def shop_file():
    """A proto3 file with two messages: Audit sorts before Order, so Order's index in it is 1."""
    F = descriptor_pb2.FieldDescriptorProto
    file = descriptor_pb2.FileDescriptorProto(name=f"shop-{uuid.uuid4().hex}.proto", package="shop", syntax="proto3")
    file.message_type.add(name="Audit").field.add(name="who", number=1, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
    order = file.message_type.add(name="Order")
    order.field.add(name="id", number=1, type=F.TYPE_INT64, label=F.LABEL_OPTIONAL)
    order.field.add(name="item", number=2, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
    order.field.add(name="tags", number=3, type=F.TYPE_STRING, label=F.LABEL_REPEATED)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return file, message_factory.GetMessageClass(pool.FindMessageTypeByName("shop.Order"))


def test_protobuf_records_the_serializer_made_of_messages_read_as_typed_columns(
    spark, kinesis, moto, serializer, tmp_path
):
    file, order = shop_file()
    name = f"proto-orders-{uuid.uuid4().hex[:8]}"
    messages = [order(id=i + 1, item=f"p{i}", tags=[f"t{i}"] * i).SerializeToString() for i in range(3)]
    records = serializer.encode_protobuf(messages[:2], name, file.SerializeToString(), "Order") + (
        serializer.encode_protobuf(messages[2:], name, file.SerializeToString(), "Order", compression="ZLIB")
    )
    # The serializer's framing: header, then Order's index in its file (1, after Audit), uncompressed.
    assert [(r[0], r[1], r[18]) for r in records[:2]] == [(HEADER_VERSION, NO_COMPRESSION, 1)] * 2
    assert records[2][1] == ZLIB
    stream = kinesis.create_stream(shards=1)
    kinesis.put_records(stream, [(f"k{i}", r) for i, r in enumerate(records)])

    # The schema the serializer registered is the .proto text it derived from the descriptor.
    column = from_gsr_protobuf("data", {**options(moto, name), "messageName": "Order"})
    rows = read(spark, kinesis, stream, column, tmp_path)
    assert sorted((r.id, r.item, list(r.tags)) for r in rows.collect()) == [
        (1, "p0", []),
        (2, "p1", ["t1"]),
        (3, "p2", ["t2", "t2"]),
    ]
