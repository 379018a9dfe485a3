# SPDX-License-Identifier: Apache-2.0
"""End to end, AWS Glue Schema Registry records: a producer serializes with a Glue Schema
Registry library (aws-glue-schema-registry) against moto's registry, puts the records into a
local Kinesis stream, and pyspark_kinesis.schema_registry.from_gsr_avro and from_gsr_json turn
them into typed columns: a schema change in the middle of a running query, zlib-compressed records, and each
failure mode (unknown or deleted version, incompatible version, not a GSR record, a registry
that denies access) in FAILFAST and PERMISSIVE modes."""

import json
import re
import uuid
from pathlib import Path

import pytest
from aws_schema_registry import DataAndSchema, SchemaRegistryClient
from aws_schema_registry.codec import encode
from aws_schema_registry.jsonschema import JsonSchema
from aws_schema_registry.serde import KafkaDeserializer, KafkaSerializer
from pyspark.errors import StreamingQueryException

from glue_registry import REGISTRY, Registry, put
from pyspark_kinesis.schema_registry import from_gsr_avro, from_gsr_json, to_gsr_avro, to_gsr_json
from streaming import kinesis_reader, kinesis_writer, read_all, run_available_now
from waiting import wait_for

V1 = {
    "type": "record",
    "name": "Order",
    "fields": [{"name": "id", "type": "long"}, {"name": "item", "type": "string"}],
}
V2 = {
    "type": "record",
    "name": "Order",
    "fields": [*V1["fields"], {"name": "quantity", "type": "int", "default": 1}],
}
INCOMPATIBLE = {
    "type": "record",
    "name": "Order",
    "fields": [{"name": "id", "type": "string"}, {"name": "item", "type": "string"}],
}


@pytest.fixture(scope="module")
def registry(moto):
    return Registry(moto)


def test_a_producer_moving_to_a_new_version_mid_stream_keeps_the_running_query_going(spark, kinesis, registry):
    name = registry.create_schema(V1)
    stream = kinesis.create_stream(shards=1)
    put(kinesis, stream, [registry.serialize(name, V1, {"id": i, "item": f"a{i}"}) for i in range(3)])
    table = f"gsr_orders_{uuid.uuid4().hex[:6]}"
    # The reader schema is fixed now: the latest version, 1.
    orders = kinesis_reader(spark, kinesis, stream).select(from_gsr_avro("data", registry.options(name)).alias("o"))
    query = orders.select("o.*").writeStream.format("memory").queryName(table).start()
    try:
        wait_for(lambda: spark.table(table).count() == 3, "the 3 records of version 1")
        registry.register(name, V2)
        records = [registry.serialize(name, V2, {"id": 10 + i, "item": f"b{i}", "quantity": i}) for i in range(3)]
        # A zlib-compressed record too, as the serializers write with compression on.
        version_2 = records[0][2:18]
        records.append(encode(records[0][18:], uuid.UUID(bytes=version_2), compression=True))
        put(kinesis, stream, records)
        wait_for(lambda: spark.table(table).count() == 7, "the 4 records of version 2")
        assert query.exception() is None
        rows = sorted((r.id, r.item) for r in spark.table(table).collect())
        assert spark.table(table).columns == ["id", "item"]
        assert rows == [(0, "a0"), (1, "a1"), (2, "a2"), (10, "b0"), (10, "b0"), (11, "b1"), (12, "b2")]
    finally:
        query.stop()


def test_a_query_reading_the_newer_version_fills_the_new_field_of_older_records_with_its_default(
    spark, kinesis, registry, tmp_path
):
    name = registry.create_schema(V1)
    registry.register(name, V2)
    stream = kinesis.create_stream(shards=1)
    put(
        kinesis,
        stream,
        [
            registry.serialize(name, V1, {"id": 1, "item": "old"}),
            registry.serialize(name, V2, {"id": 2, "item": "new", "quantity": 7}),
        ],
    )
    df = kinesis_reader(spark, kinesis, stream).select(
        from_gsr_avro("data", registry.options(name, schemaVersion="2")).alias("o")
    )
    run_available_now(df.select("o.*"), tmp_path / "out", tmp_path / "checkpoint")
    rows = sorted(tuple(r) for r in spark.read.parquet(str(tmp_path / "out")).collect())
    assert rows == [(1, "old", 1), (2, "new", 7)]


def failing_records(registry):
    """(what, schema version id or None, record) for each record a query of schema `name` cannot read."""
    name = registry.create_schema(V1)
    other = registry.create_schema(INCOMPATIBLE)
    # A definition of its own: the library's serializer keeps one version id per definition.
    gone_definition = {**V1, "doc": "a schema deleted before the query reads"}
    gone = registry.create_schema(gone_definition)
    deleted = registry.serialize(gone, gone_definition, {"id": 1, "item": "x"})
    # The serializer writes under the schema of its own name for the topic (Kafka's "-value"):
    # delete the schema the record's version belongs to.
    version = registry.glue.get_schema_version(SchemaVersionId=str(uuid.UUID(bytes=deleted[2:18])))
    registry.glue.delete_schema(SchemaId={"SchemaArn": version["SchemaArn"]})
    unknown = uuid.uuid4()
    incompatible = registry.serialize(other, INCOMPATIBLE, {"id": "one", "item": "x"})
    return name, [
        ("unknown", str(unknown), encode(registry.serialize(name, V1, {"id": 1, "item": "x"})[18:], unknown)),
        ("deleted", str(uuid.UUID(bytes=deleted[2:18])), deleted),
        ("incompatible", str(uuid.UUID(bytes=incompatible[2:18])), incompatible),
        ("not GSR", None, b'{"id": 1}'),
    ]


def test_permissive_mode_gives_null_and_the_reason_for_each_record_it_cannot_read(spark, kinesis, registry, tmp_path):
    name, failing = failing_records(registry)
    stream = kinesis.create_stream(shards=1)
    good = registry.serialize(name, V1, {"id": 5, "item": "fine"})
    put(kinesis, stream, [record for _, _, record in failing] + [good])
    df = kinesis_reader(spark, kinesis, stream).select(
        "sequenceNumber", from_gsr_avro("data", registry.options(name, mode="PERMISSIVE")).alias("o")
    )
    run_available_now(df.select("sequenceNumber", "o.value", "o.error"), tmp_path / "out", tmp_path / "checkpoint")
    rows = sorted(spark.read.parquet(str(tmp_path / "out")).collect(), key=lambda r: int(r.sequenceNumber))
    assert len(rows) == 5
    for (what, version, _), row in zip(failing, rows):
        assert row.value is None, what
        assert (version or "not a Glue Schema Registry record") in row.error, (what, row.error)
    assert "not in the registry" in rows[0].error and "not in the registry" in rows[1].error
    assert "cannot be read as" in rows[2].error
    assert (rows[4].value.id, rows[4].value.item, rows[4].error) == (5, "fine", None)


@pytest.mark.parametrize("case", ["unknown", "deleted", "incompatible", "not GSR"])
def test_failfast_mode_fails_the_query_naming_the_version_it_cannot_read(spark, kinesis, registry, tmp_path, case):
    name, failing = failing_records(registry)
    what, version, record = next(f for f in failing if f[0] == case)
    stream = kinesis.create_stream(shards=1)
    put(kinesis, stream, [record])
    df = kinesis_reader(spark, kinesis, stream).select(from_gsr_avro("data", registry.options(name)).alias("o"))
    with pytest.raises(StreamingQueryException) as failure:
        run_available_now(df.select("o.*"), tmp_path / "out", tmp_path / "checkpoint")
    assert (version or "not a Glue Schema Registry record") in str(failure.value), str(failure.value)[:2000]


def test_a_registry_that_denies_access_fails_the_definition_naming_the_permission(spark, moto, registry):
    name = registry.create_schema(V1)
    key_id, secret, _ = moto.create_user(f"no-glue-{uuid.uuid4().hex[:6]}", ["kinesis:ListShards"])
    df = spark.createDataFrame([(b"x",)], "data binary")
    with pytest.raises(Exception) as failure:
        df.select(from_gsr_avro("data", registry.options(name, awsAccessKey=key_id, awsSecretKey=secret)))
    message = str(failure.value)
    assert "AccessDenied" in message and "glue:GetSchemaVersion" in message, message[:2000]


def test_records_spark_writes_with_a_registered_new_schema_are_read_by_a_gsr_deserializer(
    spark, kinesis, registry, tmp_path
):
    name = f"written-{uuid.uuid4().hex[:8]}"
    stream = kinesis.create_stream(shards=1)
    rows = spark.createDataFrame([(1, "apple", 3), (2, "pear", 4)], "id long, item string, quantity int")
    options = registry.options(name, schemaDefinition=json.dumps(V2), autoRegistration="true", compression="zlib")
    out = rows.selectExpr("CAST(id AS STRING) AS partitionKey", "struct(*) AS order").select(
        "partitionKey", to_gsr_avro("order", options).alias("data")
    )
    kinesis_writer(out, kinesis, stream).save()
    deserializer = KafkaDeserializer(SchemaRegistryClient(registry.glue, registry_name=REGISTRY))
    records = [deserializer.deserialize(stream, data) for _, _, data in read_all(kinesis, stream)]
    got = sorted((r.data["id"], r.data["item"], r.data["quantity"]) for r in records)
    assert got == [(1, "apple", 3), (2, "pear", 4)]
    # The schema was created with the definition as its first version.
    version = registry.glue.get_schema_version(
        SchemaId={"RegistryName": REGISTRY, "SchemaName": name}, SchemaVersionNumber={"LatestVersion": True}
    )
    assert version["VersionNumber"] == 1 and json.loads(version["SchemaDefinition"]) == V2


def test_a_wrong_option_is_named():
    with pytest.raises(TypeError, match="option 'schemaVersion' is int"):
        from_gsr_avro("data", {"schemaVersion": 2})  # type: ignore[dict-item]


# JSON Schema records: a producer using the library's JSON Schema serializer, which writes the
# header and then the record as UTF-8 JSON (after checking it against the schema).
JSON_PROPERTIES = {"id": {"type": "integer"}, "item": {"type": "string"}}
JSON_V1 = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "properties": JSON_PROPERTIES,
    "required": ["id", "item"],
}
JSON_V2 = {**JSON_V1, "properties": {**JSON_PROPERTIES, "quantity": {"type": "integer"}}}
JSON_INCOMPATIBLE = {**JSON_V1, "properties": {"id": {"type": "string"}, "item": {"type": "string"}}}


class JsonProducer:
    """The library's serializer, with each record's schema registered under the schema name
    given (not Kafka's "<topic>-value"), so the query and the producer share one schema."""

    def __init__(self, registry):
        self.registry = registry
        client = SchemaRegistryClient(registry.glue, registry_name=REGISTRY)
        self.serializer = KafkaSerializer(client, schema_naming_strategy=lambda topic, is_key, schema: topic)

    def create_schema(self, definition):
        name = f"json-orders-{uuid.uuid4().hex[:8]}"
        self.registry.glue.create_schema(
            RegistryId={"RegistryName": REGISTRY},
            SchemaName=name,
            DataFormat="JSON",
            Compatibility="NONE",
            SchemaDefinition=str(JsonSchema(definition)),
        )
        return name

    def serialize(self, name, definition, value):
        """`value` as the serializer writes it; a definition new to schema `name` is registered as its next version."""
        return self.serializer.serialize(name, DataAndSchema(value, JsonSchema(definition)))


@pytest.fixture(scope="module")
def json_producer(registry):
    return JsonProducer(registry)


def test_json_schema_records_of_a_new_version_mid_stream_keep_the_running_query_going(
    spark, kinesis, registry, json_producer
):
    name = json_producer.create_schema(JSON_V1)
    stream = kinesis.create_stream(shards=1)
    put(kinesis, stream, [json_producer.serialize(name, JSON_V1, {"id": i, "item": f"a{i}"}) for i in range(3)])
    table = f"gsr_json_{uuid.uuid4().hex[:6]}"
    # The reader schema is fixed now: the latest version, 1.
    orders = kinesis_reader(spark, kinesis, stream).select(from_gsr_json("data", registry.options(name)).alias("o"))
    query = orders.select("o.*").writeStream.format("memory").queryName(table).start()
    try:
        wait_for(lambda: spark.table(table).count() == 3, "the 3 JSON records of version 1")
        records = [
            json_producer.serialize(name, JSON_V2, {"id": 10 + i, "item": f"b{i}", "quantity": i}) for i in range(2)
        ]
        version_2 = uuid.UUID(bytes=records[0][2:18])
        assert version_2 != uuid.UUID(bytes=json_producer.serialize(name, JSON_V1, {"id": 0, "item": "x"})[2:18])
        # A zlib-compressed record too, as the serializers write with compression on.
        records.append(encode(records[0][18:], version_2, compression=True))
        put(kinesis, stream, records)
        wait_for(lambda: spark.table(table).count() == 6, "the 3 JSON records of version 2")
        assert query.exception() is None
        assert spark.table(table).columns == ["id", "item"]
        rows = sorted((r.id, r.item) for r in spark.table(table).collect())
        assert rows == [(0, "a0"), (1, "a1"), (2, "a2"), (10, "b0"), (10, "b0"), (11, "b1")]
    finally:
        query.stop()


def failing_json_records(registry, json_producer):
    """(schema name, [(what, version id or None, record)]) for JSON records a query of that schema cannot read."""
    name = json_producer.create_schema(JSON_V1)
    other = json_producer.create_schema(JSON_INCOMPATIBLE)
    gone_definition = {**JSON_V1, "description": "a schema deleted before the query reads"}
    gone = json_producer.create_schema(gone_definition)
    deleted = json_producer.serialize(gone, gone_definition, {"id": 1, "item": "x"})
    registry.glue.delete_schema(SchemaId={"RegistryName": REGISTRY, "SchemaName": gone})
    unknown = uuid.uuid4()
    incompatible = json_producer.serialize(other, JSON_INCOMPATIBLE, {"id": "one", "item": "x"})
    good = json_producer.serialize(name, JSON_V1, {"id": 1, "item": "x"})
    return name, [
        ("unknown", str(unknown), encode(good[18:], unknown)),
        ("deleted", str(uuid.UUID(bytes=deleted[2:18])), deleted),
        ("incompatible", str(uuid.UUID(bytes=incompatible[2:18])), incompatible),
        ("not GSR", None, b'{"id": 1}'),
    ]


def test_json_schema_records_it_cannot_read_give_null_and_the_reason_in_permissive_mode(
    spark, kinesis, registry, json_producer, tmp_path
):
    name, failing = failing_json_records(registry, json_producer)
    stream = kinesis.create_stream(shards=1)
    good = json_producer.serialize(name, JSON_V1, {"id": 5, "item": "fine"})
    put(kinesis, stream, [record for _, _, record in failing] + [good])
    df = kinesis_reader(spark, kinesis, stream).select(
        "sequenceNumber", from_gsr_json("data", registry.options(name, mode="PERMISSIVE")).alias("o")
    )
    run_available_now(df.select("sequenceNumber", "o.value", "o.error"), tmp_path / "out", tmp_path / "checkpoint")
    rows = sorted(spark.read.parquet(str(tmp_path / "out")).collect(), key=lambda r: int(r.sequenceNumber))
    assert len(rows) == 5
    for (what, version, _), row in zip(failing, rows):
        assert row.value is None, what
        assert (version or "not a Glue Schema Registry record") in row.error, (what, row.error)
    assert "not in the registry" in rows[0].error and "not in the registry" in rows[1].error
    assert "/id is string there, bigint here" in rows[2].error
    assert (rows[4].value.id, rows[4].value.item, rows[4].error) == (5, "fine", None)


@pytest.mark.parametrize("case", ["unknown", "deleted", "incompatible", "not GSR"])
def test_json_schema_records_it_cannot_read_fail_the_query_naming_the_version(
    spark, kinesis, registry, json_producer, tmp_path, case
):
    name, failing = failing_json_records(registry, json_producer)
    _, version, record = next(f for f in failing if f[0] == case)
    stream = kinesis.create_stream(shards=1)
    put(kinesis, stream, [record])
    df = kinesis_reader(spark, kinesis, stream).select(from_gsr_json("data", registry.options(name)).alias("o"))
    with pytest.raises(StreamingQueryException) as failure:
        run_available_now(df.select("o.*"), tmp_path / "out", tmp_path / "checkpoint")
    assert (version or "not a Glue Schema Registry record") in str(failure.value), str(failure.value)[:2000]


def test_json_schema_records_spark_writes_under_a_registered_new_schema_are_read_by_a_gsr_deserializer(
    spark, kinesis, registry, tmp_path
):
    name = f"json-written-{uuid.uuid4().hex[:8]}"
    stream = kinesis.create_stream(shards=1)
    rows = spark.createDataFrame([(1, "apple", 3), (2, "pear", None)], "id long, item string, quantity int")
    definition = str(JsonSchema(JSON_V2))
    options = registry.options(name, schemaDefinition=definition, autoRegistration="true", compression="zlib")
    out = rows.selectExpr("CAST(id AS STRING) AS partitionKey", "struct(*) AS order").select(
        "partitionKey", to_gsr_json("order", options).alias("data")
    )
    kinesis_writer(out, kinesis, stream).save()
    # The library's deserializer checks each record against the schema version it names.
    deserializer = KafkaDeserializer(SchemaRegistryClient(registry.glue, registry_name=REGISTRY))
    records = [deserializer.deserialize(stream, data).data for _, _, data in read_all(kinesis, stream)]
    assert sorted(records, key=lambda r: r["id"]) == [
        {"id": 1, "item": "apple", "quantity": 3},
        {"id": 2, "item": "pear"},
    ]
    version = registry.glue.get_schema_version(
        SchemaId={"RegistryName": REGISTRY, "SchemaName": name}, SchemaVersionNumber={"LatestVersion": True}
    )
    assert (version["VersionNumber"], version["DataFormat"]) == (1, "JSON")
    assert json.loads(version["SchemaDefinition"]) == JSON_V2


def test_a_json_schema_outside_the_supported_subset_is_named_when_the_query_is_defined(spark, registry):
    definition = {"type": "object", "properties": {"id": {"oneOf": [{"type": "integer"}, {"type": "string"}]}}}
    df = spark.createDataFrame([(b"x",)], "data binary")
    with pytest.raises(Exception) as failure:
        df.select(from_gsr_json("data", registry.options("any", schemaDefinition=json.dumps(definition))))
    assert "keyword 'oneOf'" in str(failure.value) and "#/properties/id" in str(failure.value)


def glue_policy_actions(heading):
    """The actions of the JSON policy under '## <heading>' in docs/permissions.md."""
    text = (Path(__file__).parent.parent / "docs" / "permissions.md").read_text()
    section = text[text.index(f"\n## {heading}\n") :]
    block = re.search(r"```json\n(.*?)```", section, re.S)
    assert block, f"docs/permissions.md: no JSON policy under '## {heading}'"
    return [a for s in json.loads(block.group(1))["Statement"] for a in s["Action"]]


def test_the_documented_glue_policies_are_enough_to_read_and_to_register_on_write(spark, moto, registry, json_producer):
    reading = glue_policy_actions("Glue Schema Registry: reading")
    writing = glue_policy_actions("Glue Schema Registry: writing")
    name = json_producer.create_schema(JSON_V1)
    record = json_producer.serialize(name, JSON_V1, {"id": 1, "item": "x"})
    key_id, secret, _ = moto.create_user(f"gsr-reader-{uuid.uuid4().hex[:6]}", reading)
    reader = registry.options(name, awsAccessKey=key_id, awsSecretKey=secret)
    df = spark.createDataFrame([(record,)], "data binary")
    assert [tuple(r) for r in df.select(from_gsr_json("data", reader).alias("o")).select("o.*").collect()] == [(1, "x")]

    key_id, secret, _ = moto.create_user(f"gsr-writer-{uuid.uuid4().hex[:6]}", writing)
    new_schema = f"json-policy-{uuid.uuid4().hex[:8]}"
    writer = registry.options(
        new_schema,
        awsAccessKey=key_id,
        awsSecretKey=secret,
        schemaDefinition=str(JsonSchema(JSON_V1)),
        autoRegistration="true",
    )
    rows = spark.createDataFrame([(2, "y")], "id long, item string").selectExpr("struct(*) AS o")
    written = rows.select(to_gsr_json("o", writer).alias("data"))
    decoded = written.select(from_gsr_json("data", {**reader, "schemaName": new_schema}).alias("o")).select("o.*")
    assert [tuple(r) for r in decoded.collect()] == [(2, "y")]
