# SPDX-License-Identifier: Apache-2.0
"""Columns of AWS Glue Schema Registry records: ``from_gsr_avro``, ``from_gsr_json`` and
``from_gsr_protobuf`` decode a binary column of records that a Glue Schema Registry serializer
wrote (Avro, JSON Schema, Protobuf) into a typed column; ``to_gsr_avro``, ``to_gsr_json`` and
``to_gsr_protobuf`` write a column as such records, for the Kinesis sink.

The reader schema is fixed when the query is analyzed (``schemaName`` + ``schemaVersion``, a
number or ``latest``; or ``schemaVersionId``; or ``schemaDefinition``); each record's writer
version is looked up in the registry and checked against it (Avro: by Avro's schema
resolution; JSON Schema: no property of a type read differently; Protobuf: by field number, no
field both have encoded differently).
The registry is reached with the connector's own options (``region``, ``endpoint``,
``awsAccessKey``/``awsSecretKey``, ``profile``, ``roleArn``, ...). See docs/schema-registry.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Optional, Union

if TYPE_CHECKING:
    from pyspark.sql import Column

FUNCTIONS_CLASS = "io.github.sparkkinesis.schemaregistry.SchemaRegistryFunctions"


def from_gsr_avro(data: Union[Column, str], options: Optional[Mapping[str, str]] = None, **kwargs: str) -> Column:
    """Decode Glue Schema Registry Avro records into a column of the reader schema's type.

    :param data: the binary column of records (a ``Column`` or a column name), such as the
        Kinesis source's ``data``.
    :param options: ``registryName``, ``schemaName``, ``schemaVersion``, ``schemaVersionId``,
        ``schemaDefinition``, ``mode`` (``FAILFAST``, the default, or ``PERMISSIVE``: a record
        that cannot be read gives ``value`` null and the reason in ``error``), and the
        connector's region, endpoint and credential options. Keyword arguments add to them.
    :raises IllegalArgumentException: an option is wrong (the message names it).
    """
    return _call("from_gsr_avro", data, _options(options, kwargs))


def to_gsr_avro(data: Union[Column, str], options: Optional[Mapping[str, str]] = None, **kwargs: str) -> Column:
    """Encode a column as Glue Schema Registry Avro records (binary), for the sink's ``data``.

    :param data: the column to write (a struct whose fields match the Avro record's by name).
    :param options: the schema version to write (``schemaName`` + ``schemaVersion``, or
        ``schemaVersionId``), or ``schemaName`` + ``schemaDefinition`` (an Avro schema in JSON),
        registered as a new version first with ``autoRegistration`` ``true`` (the schema created
        with ``compatibility``, default ``BACKWARD``, if it does not exist); ``compression``
        (``none`` or ``zlib``); the connector's region, endpoint and credential options.
    """
    return _call("to_gsr_avro", data, _options(options, kwargs))


def from_gsr_json(data: Union[Column, str], options: Optional[Mapping[str, str]] = None, **kwargs: str) -> Column:
    """Decode Glue Schema Registry JSON Schema records into a struct column of the reader schema.

    The struct's fields are the schema's ``properties`` (see docs/schema-registry.md for the
    supported subset of JSON Schema); the options are ``from_gsr_avro``'s, with
    ``schemaDefinition`` a JSON Schema.

    :raises IllegalArgumentException: an option is wrong (the message names it).
    """
    return _call("from_gsr_json", data, _options(options, kwargs))


def to_gsr_json(data: Union[Column, str], options: Optional[Mapping[str, str]] = None, **kwargs: str) -> Column:
    """Encode a struct column as Glue Schema Registry JSON Schema records (binary), for the sink's ``data``.

    The options are ``to_gsr_avro``'s, with ``schemaDefinition`` a JSON Schema; the struct's
    fields must be properties of the schema, and include its required ones.
    """
    return _call("to_gsr_json", data, _options(options, kwargs))


def from_gsr_protobuf(data: Union[Column, str], options: Optional[Mapping[str, str]] = None, **kwargs: str) -> Column:
    """Decode Glue Schema Registry Protobuf records into a struct column of a message of the schema.

    The options are ``from_gsr_avro``'s, with ``schemaDefinition`` ``.proto`` text, and
    ``messageName``: which message of the schema the records are (its name, with or without the
    package; default: the first message of the file). The struct's fields are the message's, typed
    as Spark's ``from_protobuf`` types them (see docs/schema-registry.md for the supported
    ``.proto`` subset).

    :raises IllegalArgumentException: an option is wrong (the message names it).
    """
    return _call("from_gsr_protobuf", data, _options(options, kwargs))


def to_gsr_protobuf(data: Union[Column, str], options: Optional[Mapping[str, str]] = None, **kwargs: str) -> Column:
    """Encode a struct column as Glue Schema Registry Protobuf records (binary), for the sink's ``data``.

    The options are ``to_gsr_avro``'s, with ``schemaDefinition`` ``.proto`` text, and
    ``messageName`` (default: the first message of the file); the struct's fields must be fields
    of the message, matched by name.
    """
    return _call("to_gsr_protobuf", data, _options(options, kwargs))


def _options(options: Optional[Mapping[str, str]], extra: Mapping[str, str]) -> dict[str, str]:
    merged = dict(options or {})
    merged.update(extra)
    for key, value in merged.items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise TypeError(f"schema registry options are strings; option {key!r} is {type(value).__name__}: {value!r}")
    return merged


def _is_connect(column: Column) -> bool:
    try:
        from pyspark.sql.connect.column import Column as ConnectColumn
    except ImportError:
        return False
    return isinstance(column, ConnectColumn)


def _call(name: str, data: Union[Column, str], options: dict[str, str]) -> Column:
    from pyspark.sql import functions as F

    column = F.col(data) if isinstance(data, str) else data
    if _is_connect(column):
        # Spark Connect: the server resolves the SQL function, which the connector's session
        # extension adds (spark.sql.extensions on the server).
        pairs = [F.lit(part) for item in options.items() for part in item]
        return F.call_function(name, column, F.create_map(*pairs))
    from pyspark import SparkContext
    from pyspark.sql.column import Column as ClassicColumn

    from pyspark_kinesis._jvm import missing_jar_message

    sc = SparkContext._active_spark_context
    if sc is None or sc._jvm is None:
        raise RuntimeError(f"{name} needs an active Spark session")
    functions = getattr(sc._jvm, FUNCTIONS_CLASS)
    from py4j.java_gateway import JavaClass

    if not isinstance(functions, JavaClass):
        raise RuntimeError(missing_jar_message(FUNCTIONS_CLASS))
    java_options = sc._jvm.java.util.HashMap()
    for key, value in options.items():
        java_options.put(key, value)
    return ClassicColumn(getattr(functions, name)(column._jc, java_options))
