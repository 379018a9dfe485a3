# SPDX-License-Identifier: Apache-2.0
"""moto's Glue Schema Registry as the schema registry end-to-end tests use it: one registry, a
user allowed to read and register in it, and a producer that serializes with the community
aws-glue-schema-registry library; `put` writes records to a stream, one partition key each."""

import json
import uuid

import boto3
from aws_schema_registry import DataAndSchema, SchemaRegistryClient
from aws_schema_registry.avro import AvroSchema
from aws_schema_registry.serde import KafkaSerializer
from botocore.config import Config

REGISTRY = "orders-registry"


class Registry:
    """moto's Glue Schema Registry with one registry, a user allowed to read it, and a
    producer that serializes with the aws-glue-schema-registry library."""

    def __init__(self, moto):
        self.moto = moto
        self.glue = boto3.client(
            "glue",
            endpoint_url=moto.endpoint,
            region_name=moto.region,
            config=Config(retries={"max_attempts": 3}),
            **moto.admin,
        )
        try:
            self.glue.create_registry(RegistryName=REGISTRY)
        except self.glue.exceptions.AlreadyExistsException:
            pass
        key_id, secret, _ = moto.create_user(
            f"gsr-user-{uuid.uuid4().hex[:6]}",
            ["glue:GetSchemaVersion", "glue:GetSchemaByDefinition", "glue:RegisterSchemaVersion", "glue:CreateSchema"],
        )
        self.reader_keys = {"awsAccessKey": key_id, "awsSecretKey": secret}
        self.serializer = KafkaSerializer(SchemaRegistryClient(self.glue, registry_name=REGISTRY))

    def create_schema(self, definition):
        """A new schema with `definition` as its version 1; the schema's name."""
        name = f"orders-{uuid.uuid4().hex[:8]}"
        self.glue.create_schema(
            RegistryId={"RegistryName": REGISTRY},
            SchemaName=name,
            DataFormat="AVRO",
            Compatibility="BACKWARD",
            SchemaDefinition=json.dumps(definition),
        )
        return name

    def register(self, name, definition):
        self.glue.register_schema_version(
            SchemaId={"RegistryName": REGISTRY, "SchemaName": name}, SchemaDefinition=json.dumps(definition)
        )

    def serialize(self, name, definition, value):
        """`value` as the library's serializer writes it (the schema named `name`, which exists)."""
        return self.serializer.serialize(name, DataAndSchema(value, AvroSchema(json.dumps(definition))))

    def options(self, name, **extra):
        return {
            "registryName": REGISTRY,
            "schemaName": name,
            "endpoint": self.moto.endpoint,
            "region": self.moto.region,
            **self.reader_keys,
            **extra,
        }


def put(kinesis, stream, records):
    kinesis.put_records(stream, [(f"k{i}", data) for i, data in enumerate(records)])
