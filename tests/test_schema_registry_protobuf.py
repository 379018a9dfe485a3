# SPDX-License-Identifier: Apache-2.0
"""End to end, AWS Glue Schema Registry Protobuf records through a Kinesis stream: a producer
serializes with Google's protobuf library and frames the bytes as AWS's GSR serializer does
(header, message index, message), schemas in moto's registry; from_gsr_protobuf turns them into
typed columns, through a schema change in the middle of a running query and each failure mode
in FAILFAST and PERMISSIVE modes; to_gsr_protobuf writes records Google's library reads back."""

import uuid
import zlib

import pytest
from aws_schema_registry.codec import encode
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, timestamp_pb2
from pyspark.errors import StreamingQueryException

from glue_registry import REGISTRY, Registry, put
from pyspark_kinesis.schema_registry import from_gsr_protobuf, to_gsr_protobuf
from streaming import kinesis_reader, kinesis_writer, read_all, run_available_now
from waiting import wait_for

V1 = """syntax = "proto3";
package shop;
import "google/protobuf/timestamp.proto";

message Order {
  int64 id = 1;
  string item = 2;
  Status status = 3;
  google.protobuf.Timestamp at = 4;
  map<string, int32> counts = 5;
  enum Status { UNKNOWN = 0; OPEN = 1; SHIPPED = 2; }
}
"""
# Compatible: a field added, and a message whose name sorts before Order, so Order's message
# index in the records moves from 0 to 1.
V2 = V1.replace("  map<string, int32> counts = 5;", "  map<string, int32> counts = 5;\n  repeated string tags = 6;") + (
    "\nmessage Audit { string who = 1; }\n"
)
INCOMPATIBLE = 'syntax = "proto3";\npackage shop;\nmessage Order { string id = 1; }\n'


def order_classes(with_tags):
    """Google's message classes for Order (and Audit) of V1 or V2, built from descriptors that say
    what the .proto text says, as protoc would compile it."""
    F = descriptor_pb2.FieldDescriptorProto
    file = descriptor_pb2.FileDescriptorProto(
        name=f"shop-{uuid.uuid4().hex}.proto",
        package="shop",
        syntax="proto3",
        dependency=["google/protobuf/timestamp.proto"],
    )
    order = file.message_type.add(name="Order")
    order.field.add(name="id", number=1, type=F.TYPE_INT64, label=F.LABEL_OPTIONAL)
    order.field.add(name="item", number=2, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
    order.field.add(name="status", number=3, type=F.TYPE_ENUM, type_name=".shop.Order.Status", label=F.LABEL_OPTIONAL)
    order.field.add(
        name="at", number=4, type=F.TYPE_MESSAGE, type_name=".google.protobuf.Timestamp", label=F.LABEL_OPTIONAL
    )
    order.field.add(
        name="counts", number=5, type=F.TYPE_MESSAGE, type_name=".shop.Order.CountsEntry", label=F.LABEL_REPEATED
    )
    entry = order.nested_type.add(name="CountsEntry")
    entry.field.add(name="key", number=1, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
    entry.field.add(name="value", number=2, type=F.TYPE_INT32, label=F.LABEL_OPTIONAL)
    entry.options.map_entry = True
    status = order.enum_type.add(name="Status")
    for number, name in enumerate(["UNKNOWN", "OPEN", "SHIPPED"]):
        status.value.add(name=name, number=number)
    if with_tags:
        order.field.add(name="tags", number=6, type=F.TYPE_STRING, label=F.LABEL_REPEATED)
        audit = file.message_type.add(name="Audit")
        audit.field.add(name="who", number=1, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
    pool = descriptor_pool.DescriptorPool()
    pool.AddSerializedFile(timestamp_pb2.DESCRIPTOR.serialized_pb)
    pool.Add(file)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("shop.Order"))


ORDER_V1 = order_classes(with_tags=False)
ORDER_V2 = order_classes(with_tags=True)


def gsr_record(version_id, message_index, message, compression=False):
    """A record as AWS's GSR Protobuf serializer frames it: header, message index (varint), message."""
    assert message_index < 128
    return encode(bytes([message_index]) + message.SerializeToString(), uuid.UUID(version_id), compression=compression)


class ProtobufSchemas:
    def __init__(self, registry):
        self.registry = registry

    def create(self, definition, compatibility="BACKWARD"):
        """A new PROTOBUF schema with `definition` as version 1: (name, version id)."""
        name = f"proto-orders-{uuid.uuid4().hex[:8]}"
        created = self.registry.glue.create_schema(
            RegistryId={"RegistryName": REGISTRY},
            SchemaName=name,
            DataFormat="PROTOBUF",
            Compatibility=compatibility,
            SchemaDefinition=definition,
        )
        return name, created["SchemaVersionId"]

    def register(self, name, definition):
        return self.registry.glue.register_schema_version(
            SchemaId={"RegistryName": REGISTRY, "SchemaName": name}, SchemaDefinition=definition
        )["SchemaVersionId"]


@pytest.fixture(scope="module")
def registry(moto):
    return Registry(moto)


@pytest.fixture(scope="module")
def schemas(registry):
    return ProtobufSchemas(registry)


def order(cls, id, item=None, status=None, seconds=None, counts=None, tags=None):
    message = cls(id=id)
    if item is not None:
        message.item = item
    if status is not None:
        message.status = status
    if seconds is not None:
        message.at.seconds = seconds
    for key, value in (counts or {}).items():
        message.counts[key] = value
    for tag in tags or []:
        message.tags.append(tag)
    return message


def test_protobuf_records_of_a_new_version_mid_stream_keep_the_running_query_going(spark, kinesis, registry, schemas):
    name, v1 = schemas.create(V1)
    stream = kinesis.create_stream(shards=1)
    put(
        kinesis,
        stream,
        [
            gsr_record(v1, 0, order(ORDER_V1, i, f"a{i}", status=1, seconds=1700000000 + i, counts={"x": i}))
            for i in range(3)
        ],
    )
    table = f"gsr_proto_{uuid.uuid4().hex[:6]}"
    # The reader message is fixed now: Order of the latest version, 1.
    opts = registry.options(name, messageName="Order")
    orders = kinesis_reader(spark, kinesis, stream).select(from_gsr_protobuf("data", opts).alias("o"))
    query = orders.select("o.*").writeStream.format("memory").queryName(table).start()
    try:
        wait_for(lambda: spark.table(table).count() == 3, "the 3 Protobuf records of version 1")
        v2 = schemas.register(name, V2)
        assert v2 != v1
        records = [gsr_record(v2, 1, order(ORDER_V2, 10 + i, f"b{i}", tags=["new"])) for i in range(2)]
        records.append(gsr_record(v2, 1, order(ORDER_V2, 12, "c", status=2), compression=True))
        put(kinesis, stream, records)
        wait_for(lambda: spark.table(table).count() == 6, "the 3 Protobuf records of version 2")
        assert query.exception() is None
        assert spark.table(table).columns == ["id", "item", "status", "at", "counts"]
        rows = sorted(
            [
                (r.id, r.item, r.status, r.at and int(r.at.timestamp()), dict(r.counts))
                for r in spark.table(table).collect()
            ],
            key=lambda row: -1 if row[0] is None else row[0],
        )
        assert rows == [
            # Proto3 does not write a field at its default (id 0): null, as from_protobuf reads it.
            (None, "a0", "OPEN", 1700000000, {"x": 0}),
            (1, "a1", "OPEN", 1700000001, {"x": 1}),
            (2, "a2", "OPEN", 1700000002, {"x": 2}),
            (10, "b0", None, None, {}),
            (11, "b1", None, None, {}),
            (12, "c", "SHIPPED", None, {}),
        ]
    finally:
        query.stop()


def failing_records(schemas):
    """(what, version id or None, record) for records a query of Order of V1 cannot read, and one it can."""
    name, good = schemas.create(V1)
    _, incompatible = schemas.create(INCOMPATIBLE)
    unknown = str(uuid.uuid4())
    cases = [
        ("unknown", unknown, gsr_record(unknown, 0, order(ORDER_V1, 1))),
        ("incompatible", incompatible, encode(b"\x00\x0a\x03one", uuid.UUID(incompatible))),
        ("not a GSR record", None, b"plain bytes"),
        ("broken", good, encode(b"\x00\x12\x05ab", uuid.UUID(good))),
    ]
    return name, good, cases


def test_protobuf_records_it_cannot_read_give_null_and_the_reason_in_permissive_mode(
    spark, kinesis, registry, schemas, tmp_path
):
    name, good, cases = failing_records(schemas)
    stream = kinesis.create_stream(shards=1)
    put(kinesis, stream, [record for _, _, record in cases] + [gsr_record(good, 0, order(ORDER_V1, 7, "ok"))])
    opts = registry.options(name, messageName="shop.Order", mode="PERMISSIVE")
    df = kinesis_reader(spark, kinesis, stream).select(from_gsr_protobuf("data", opts).alias("r"))
    run_available_now(df.select("r.value.id", "r.value.item", "r.error"), tmp_path / "out", tmp_path / "checkpoint")
    rows = spark.read.parquet(str(tmp_path / "out")).collect()
    assert sorted((r.id, r.item) for r in rows if r.error is None) == [(7, "ok")]
    errors = sorted(r.error for r in rows if r.error is not None)
    assert len(errors) == len(cases) and all(r.id is None for r in rows if r.error is not None)
    for what, version, _ in cases:
        assert any(version is None or version in e for e in errors), (what, errors)
    assert any("int64 in the query's schema, string in the record's" in e for e in errors), errors
    assert any("not a Glue Schema Registry record" in e for e in errors), errors
    assert any("not in the registry" in e for e in errors), errors


@pytest.mark.parametrize("case", ["unknown", "incompatible"])
def test_protobuf_records_it_cannot_read_fail_the_query_naming_the_version(
    spark, kinesis, registry, schemas, tmp_path, case
):
    name, _, cases = failing_records(schemas)
    _, version, record = next(c for c in cases if c[0] == case)
    stream = kinesis.create_stream(shards=1)
    put(kinesis, stream, [record])
    df = kinesis_reader(spark, kinesis, stream).select(from_gsr_protobuf("data", registry.options(name)).alias("o"))
    with pytest.raises(StreamingQueryException) as failure:
        run_available_now(df.select("o.*"), tmp_path / "out", tmp_path / "checkpoint")
    assert version in str(failure.value)


def test_protobuf_records_spark_writes_under_a_registered_new_schema_are_read_by_googles_library(
    spark, kinesis, registry, tmp_path
):
    name = f"proto-written-{uuid.uuid4().hex[:8]}"
    stream = kinesis.create_stream(shards=1)
    rows = spark.createDataFrame(
        [(1, "apple", "OPEN", ["red", "ripe"]), (2, "pear", "UNKNOWN", [])],
        "id long, item string, status string, tags array<string>",
    )
    opts = registry.options(name, schemaDefinition=V2, autoRegistration="true", compression="zlib", messageName="Order")
    out = rows.selectExpr("CAST(id AS STRING) AS partitionKey", "struct(id, item, status, tags) AS o").select(
        "partitionKey", to_gsr_protobuf("o", opts).alias("data")
    )
    kinesis_writer(out, kinesis, stream).save()
    version = registry.glue.get_schema_version(
        SchemaId={"RegistryName": REGISTRY, "SchemaName": name}, SchemaVersionNumber={"LatestVersion": True}
    )
    assert (
        version["VersionNumber"] == 1
        and version["SchemaDefinition"].strip() == V2.strip()
        and version["DataFormat"] == "PROTOBUF"
    )
    got = []
    for _, _, data in read_all(kinesis, stream):
        assert data[0] == 3 and data[1] == 5, "a zlib-compressed GSR record"
        assert str(uuid.UUID(bytes=data[2:18])) == version["SchemaVersionId"]
        payload = zlib.decompress(data[18:])
        assert payload[0] == 1, "Order's message index in V2 (shop.Audit, shop.Order, shop.Order.CountsEntry)"
        message = ORDER_V2.FromString(payload[1:])
        got.append((message.id, message.item, message.status, list(message.tags)))
    assert sorted(got) == [(1, "apple", 1, ["red", "ripe"]), (2, "pear", 0, [])]
