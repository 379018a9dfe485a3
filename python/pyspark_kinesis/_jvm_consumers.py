# SPDX-License-Identifier: Apache-2.0
"""The consumer calls made by the JVM's ``io.github.sparkkinesis.AWSKinesisConsumerManager``
through py4j (a classic SparkSession with the connector jar): the very calls a query makes."""

from __future__ import annotations

from typing import Any, Dict, List, Type

from pyspark.sql import DataFrame, SparkSession

from pyspark_kinesis._consumer_calls import ConsumerInfo
from pyspark_kinesis._consumer_rules import KinesisConsumerArgumentError, KinesisConsumerError
from pyspark_kinesis._jvm import jvm_class

JVM_CLASS = "io.github.sparkkinesis.AWSKinesisConsumerManager"


class JvmConsumerCalls:
    """One JVM ``AWSKinesisConsumerManager``, made from the options at once."""

    def __init__(self, spark: SparkSession, options: Dict[str, str]) -> None:
        jbuilder = jvm_class(spark, JVM_CLASS).newManager()
        for key, value in options.items():
            jbuilder = jbuilder.option(key, value)
        self._manager = _call(jbuilder.create)
        self._spark = spark

    @property
    def where(self) -> str:
        return str(_call(self._manager.where))

    def list(self, stream: str) -> List[ConsumerInfo]:
        rows = DataFrame(_call(self._manager.listConsumers, stream), self._spark).collect()
        # Spark gives naive datetimes in the driver's local time zone, which astimezone assumes.
        return [
            (
                r.consumerName,
                r.consumerARN,
                r.consumerStatus,
                None if r.consumerCreationTimestamp is None else r.consumerCreationTimestamp.astimezone(),
            )
            for r in rows
        ]

    def register(self, stream: str, name: str) -> str:
        return str(_call(self._manager.registerConsumer, stream, name))

    def deregister(self, stream: str, name: str) -> None:
        _call(self._manager.deregisterConsumer, stream, name)


def _call(method: Any, *args: Any) -> Any:
    """Calls a JVM method, raising its Java exception as the connector's Python error: an
    IllegalArgumentException (a bad option value), which PySpark raises as its own, becomes a
    :class:`KinesisConsumerArgumentError`, any other a :class:`KinesisConsumerError`."""
    from py4j.protocol import Py4JJavaError
    from pyspark.errors import IllegalArgumentException

    try:
        return method(*args)
    except Py4JJavaError as e:
        raise _error(e.java_exception, KinesisConsumerError) from None
    except IllegalArgumentException as e:
        # PySpark keeps the Java exception it converted as _origin (3.5 and 4.x alike).
        raise _error(getattr(e, "_origin", None), KinesisConsumerArgumentError, str(e)) from None


def _error(java: Any, kind: Type[KinesisConsumerError], fallback: str = "") -> KinesisConsumerError:
    if java is None:
        return kind(fallback)
    from py4j.protocol import Py4JError

    condition = None
    try:
        condition = java.getCondition()
    except Py4JError:  # Not a SparkThrowable: a plain Java error has no condition.
        pass
    return kind(str(java.getMessage()), None if condition is None else str(condition))
